import Foundation

extension MapClass {
    /// What a new class starts with where its creator chooses nothing: `POST /api/classes`,
    /// `onthemap admin class create`, a course's class (LTI, but for its join rule) and
    /// `MapClass.init`. The web app's new-class form starts on the same choices
    /// (`js/classOptions.js`'s defaults, held to these by `ClassOptionsTests`), and so does the
    /// OpenAPI document's `ClassCreateRequest`.
    public enum NewClass {
        public static let visibility: Visibility = .members
        public static let joinRule: JoinRule = .invite
        public static let precision: Precision = .city
        public static let approval: Approval = .off
    }
}
