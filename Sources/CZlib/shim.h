// zlib, for gzip-compressing the live map's snapshot once per change.
#include <zlib.h>
