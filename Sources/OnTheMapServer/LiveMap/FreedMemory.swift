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

    /// Fixes glibc's mmap threshold at 4 MB: each block from 4 MB up is its own mapping,
    /// handed back whole when freed, and the threshold no longer moves.
    ///
    /// glibc starts at 128 KB but raises the threshold, up to 32 MB, each time such a block is
    /// freed (and the heap's trim threshold with it); the live map's big one-off work (a
    /// million rows read in pages, the columns written, gzip's pieces) then left what it freed
    /// scattered among the threads' heaps: 320-327 MB after a class of a million locations,
    /// 280 MB with the threshold fixed. At 128 KB an uncached list page (its blocks mapped and
    /// unmapped each time) cost a tenth more CPU; from 1 MB up, the same as before. A host who
    /// sets `MALLOC_MMAP_THRESHOLD_` keeps their own.
    static func keepLargeBlocksApart() {
        #if canImport(Glibc)
            guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let option else { return }
            _ = option(mmapThresholdOption, 4 * 1024 * 1024)
        #endif
    }

    #if canImport(Glibc)
        /// `M_MMAP_THRESHOLD` of glibc's malloc.h.
        private static let mmapThresholdOption: Int32 = -3

        /// glibc's `mallopt`, which Swift's Glibc module does not declare; looked up once.
        private static let option: (@convention(c) (Int32, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        }()

        /// glibc's `malloc_trim`, which Swift's Glibc module does not declare; looked up once.
        private static let trim: (@convention(c) (Int) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        }()
    #endif
}
