import Foundation

/// The process's open-file limit, which bounds how many connections can be open at once.
public enum FileDescriptorLimit {
    /// The soft limit now in effect, nil if unknown.
    public static var current: Int? {
        var limit = rlimit()
        guard get(&limit) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (what nginx's worker_rlimit_nofile does), so the
    /// connection cap, not the kernel, decides when to refuse. Returns the limit in effect.
    @discardableResult
    public static func raiseToHardLimit() -> Int? {
        var limit = rlimit()
        guard get(&limit) else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            _ = set(&raised)
        }
        return current
    }

    private static func get(_ limit: inout rlimit) -> Bool {
        #if os(Linux)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        #else
            getrlimit(RLIMIT_NOFILE, &limit) == 0
        #endif
    }

    private static func set(_ limit: inout rlimit) -> Bool {
        #if os(Linux)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        #else
            setrlimit(RLIMIT_NOFILE, &limit) == 0
        #endif
    }
}
