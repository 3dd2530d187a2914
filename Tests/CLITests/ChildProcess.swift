import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests that run `onthemap`.
///
/// Not Foundation's `Process`: on Linux (Swift 6.3.1) its `run()` reads each
/// `/proc/self/fd` entry as a whole 256-byte name and can read past the end of glibc's
/// buffer, crashing the test process now and then (swift-corelibs-foundation PR #5472); it
/// happened here with 1,370 descriptors open, when the suites run side by side.
final class ChildProcess: @unchecked Sendable {
    let processIdentifier: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable`; the standard streams go to the files named (nil: /dev/null).
    /// Descriptors other than 0, 1 and 2 are closed in the child.
    init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        stdin: URL? = nil, stdout: URL? = nil, stderr: URL? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin?.path ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout?.path ?? "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr?.path ?? "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0o600)
        #if canImport(Glibc)
            // glibc 2.34+ has it, but Swift's Glibc module does not declare it.
            if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
                typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
                _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            }
        #endif
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard result == 0 else {
            throw CLITestError("could not start \(executable.path): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    deinit { forceStop(self) }

    /// Reaps the child if it has exited; `block` waits for it.
    private func reap(block: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        let pid = waitpid(processIdentifier, &raw, block ? 0 : WNOHANG)
        guard pid == processIdentifier else { return nil }
        // Exit code when it exited, the signal's number when a signal ended it (as Process).
        let signal = raw & 0x7f
        status = signal == 0 ? (raw >> 8) & 0xff : signal
        return status
    }

    var isRunning: Bool { reap(block: false) == nil }

    @discardableResult
    func waitUntilExit() -> Int32 { reap(block: true) ?? -1 }

    var terminationStatus: Int32 { reap(block: false) ?? -1 }

    func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }
}

/// Kills a child with SIGKILL: children inherit the test runner's signal mask, in which
/// SIGTERM and SIGINT may be blocked, so a gentler signal can wait forever.
func forceStop(_ process: ChildProcess) {
    guard process.isRunning else { return }
    process.signal(SIGKILL)
    process.waitUntilExit()
}
