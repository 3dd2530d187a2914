import Foundation

/// The browser app (HTML, CSS, ES modules, the offline basemap), shipped as this target's
/// resources so `swift run` and an installed binary both find it. It has no Swift logic:
/// the server's `Web` feature serves it.
public enum WebAppFiles {
    /// The bundled `Public` folder; falls back to the source tree (for `swift run` before
    /// the bundle exists).
    public static func bundledDirectory() -> String {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        let bundleNames = ["OnTheMap_WebApp.resources", "OnTheMap_WebApp.bundle"]
        var roots: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            roots.append(executable)
        }
        for root in roots {
            for name in bundleNames {
                candidates.append(root.appendingPathComponent(name).appendingPathComponent("Public"))
                candidates.append(root.appendingPathComponent(name).appendingPathComponent("Contents/Resources/Public"))
            }
        }
        // Sources/WebApp/WebAppFiles.swift -> Sources/WebApp/Public
        let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Public")
        candidates.append(sourceTree)
        for candidate in candidates where fileManager.fileExists(atPath: candidate.appendingPathComponent("index.html").path) {
            return candidate.path
        }
        return sourceTree.path
    }
}
