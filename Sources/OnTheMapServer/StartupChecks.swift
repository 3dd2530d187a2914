import Foundation
import NIOCore
import NIOPosix

/// Why the server cannot start as configured, found before anything else starts (so a taken
/// port or an unusable folder is one clear sentence, not a shutdown's worth of errors).
public struct ListenError: Error, CustomStringConvertible {
    public let description: String
}

/// Binds `host:port` for a moment and lets it go. Port 0 always works.
public func checkCanListen(host: String, port: Int) async throws {
    guard port != 0 else { return }
    do {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port).get()
        try await channel.close()
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
        throw ListenError(
            description: "Port \(port) on \(host) is already in use (another OnTheMap?). "
                + "Stop it, or choose another port: --port \(port + 1), or --port 0 for any free one.")
    } catch let error as IOError where error.errnoCode == EACCES {
        throw ListenError(description: "Not allowed to listen on port \(port) (ports under 1024 need privileges); try --port 8080.")
    } catch {
        throw ListenError(description: "Cannot listen on \(host):\(port): \(error).")
    }
}

/// Creates the data folder if needed and checks that files can be written in it.
public func checkDataDirectory(_ path: String) throws {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
        throw ListenError(description: "The data directory \(path) is a file, not a folder; choose another with --data-dir.")
    }
    do {
        try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let probe = (path as NSString).appendingPathComponent(".onthemap-write-check-\(UUID().uuidString)")
        guard manager.createFile(atPath: probe, contents: Data()) else {
            throw ListenError(
                description: "Cannot write in the data directory \(path); give this user write access or choose another with --data-dir.")
        }
        try? manager.removeItem(atPath: probe)
    } catch let error as ListenError {
        throw error
    } catch {
        throw ListenError(
            description: "Cannot create the data directory \(path) (\(creationFailure(path))); choose another with --data-dir.")
    }
}

/// Why a folder cannot be created at `path`, found from its nearest existing parent.
private func creationFailure(_ path: String) -> String {
    var ancestor = (path as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    while !ancestor.isEmpty, ancestor != "/", !FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
        ancestor = (ancestor as NSString).deletingLastPathComponent
    }
    if !isDirectory.boolValue, ancestor != "/", !ancestor.isEmpty { return "\(ancestor) is a file" }
    if !FileManager.default.isWritableFile(atPath: ancestor.isEmpty ? "." : ancestor) { return "no permission to write in \(ancestor)" }
    return "the system refused"
}
