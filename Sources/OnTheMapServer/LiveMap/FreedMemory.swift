#if canImport(Glibc)
    import Glibc
#endif

/// After the live map's large one-off work (reading a big class's locations, encoding its
/// snapshot), the heap holds many megabytes freed by that work; glibc keeps them for later
/// allocations unless asked to hand them back, and the server's RSS stays as if they were in
/// use (about 35 MB after a class of a million locations is read).
enum FreedMemory {
    /// Rows from which the work is large enough to be worth it.
    static let worthFrom = 50_000

    static func giveBack() {
        #if canImport(Glibc)
            if let trim { _ = trim(0) }
        #endif
    }

    #if canImport(Glibc)
        /// glibc's `malloc_trim`, which Swift's Glibc module does not declare; looked up once.
        private static let trim: (@convention(c) (Int) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        }()
    #endif
}
