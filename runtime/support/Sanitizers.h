// Whether this code was compiled under AddressSanitizer or
// ThreadSanitizer (scripts/test-sanitizers). Both reserve terabytes of
// address space for their shadow memory at startup, so a process limited
// with RLIMIT_AS (a compile worker) cannot even start under them: such
// limits are not applied in a sanitized build, and the tests of those
// limits are skipped there.
#pragma once

namespace anyshape {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ANYSHAPE_SANITIZED_BUILD 1
#endif
#endif
#if !defined(ANYSHAPE_SANITIZED_BUILD) &&                                      \
    (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define ANYSHAPE_SANITIZED_BUILD 1
#endif

#ifdef ANYSHAPE_SANITIZED_BUILD
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

} // namespace anyshape
