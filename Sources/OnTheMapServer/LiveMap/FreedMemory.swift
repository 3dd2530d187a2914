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

    /// Makes every allocation from 128 KB up its own mapping, handed back whole when freed.
    ///
    /// glibc starts with that threshold but raises it, up to 32 MB, each time such a block is
    /// freed; the live map's big one-off work (a million rows read in pages, nine columns
    /// written, gzip's pieces) then takes its blocks of a few megabytes from the heaps of
    /// whichever threads run it, and what they free stays scattered among what stays in use:
    /// after a class of a million locations the server held 320-327 MB, and 280 MB with the
    /// threshold fixed (the same first snapshot's time). A host who sets
    /// `MALLOC_MMAP_THRESHOLD_` keeps their own.
    static func keepLargeBlocksApart() {
        #if canImport(Glibc)
            guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let option else { return }
            _ = option(mmapThresholdOption, 128 * 1024)
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
