// The system zlib (Debian's zlib1g-dev), for what compress-nio does not expose: a raw deflate
// stream flushed to a byte boundary, and CRC-32 with crc32_combine (the live map's gzip in
// parallel, `ParallelGzip`).
#include <zlib.h>
