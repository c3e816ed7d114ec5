// Whether this test program is the ThreadSanitizer build (the tsan preset: CMake option TBKIT_TSAN
// defines TBKIT_CHECKED_THREADS). Cases that take minutes under it run fewer inputs there; the
// release and dev runs keep them all.
#pragma once

namespace tbkit::test {

#ifdef TBKIT_CHECKED_THREADS
inline constexpr bool kCheckedThreads = true;
#else
inline constexpr bool kCheckedThreads = false;
#endif

}  // namespace tbkit::test
