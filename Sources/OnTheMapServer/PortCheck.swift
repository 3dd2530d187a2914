import NIOCore
import NIOPosix

/// Why the server cannot listen where it was told to, found before anything else starts
/// (so a taken port is one clear sentence, not a shutdown's worth of errors).
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
        throw ListenError(description: "Port \(port) on \(host) is already in use (another OnTheMap?). "
            + "Stop it, or choose another port: --port \(port + 1), or --port 0 for any free one.")
    } catch let error as IOError where error.errnoCode == EACCES {
        throw ListenError(description: "Not allowed to listen on port \(port) (ports under 1024 need privileges); try --port 8080.")
    } catch {
        throw ListenError(description: "Cannot listen on \(host):\(port): \(error).")
    }
}
