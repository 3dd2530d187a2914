/// What free text shown to other students may hold. Control characters (NUL, escapes, line
/// breaks in a one-line field) and the bidirectional embedding, override and isolate
/// characters are refused: the latter reorder what is displayed after them, so a name
/// could be made to read as another, or a place to hide part of a link.
enum TextRules {
    static func isDisplaySafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control
                || bidiControls.contains(scalar.value) || bidiIsolates.contains(scalar.value)
        }
    }

    /// LRE, RLE, PDF, LRO, RLO (U+202A-202E) and LRI, RLI, FSI, PDI (U+2066-2069).
    private static let bidiControls: ClosedRange<UInt32> = 0x202A...0x202E
    private static let bidiIsolates: ClosedRange<UInt32> = 0x2066...0x2069
}
