// Happens-before edges ThreadSanitizer cannot see. Work handed from one
// thread to another through a library that is not instrumented (gRPC's
// reactors, TBB's task queue, libgomp's fork and join) is ordered by that
// library's own synchronisation, invisible to TSan, which then reports the
// handed-over data as raced (scripts/test-sanitizers thread). At each such
// hand-off the sender calls handOffRelease(token) after writing what it
// hands over and the receiver handOffAcquire(token) before reading it,
// with a token (any address) unique to that hand-off. Outside a TSan
// build both are nothing.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ANYSHAPE_TSAN_BUILD 1
#endif
#endif
#if !defined(ANYSHAPE_TSAN_BUILD) && defined(__SANITIZE_THREAD__)
#define ANYSHAPE_TSAN_BUILD 1
#endif

#ifdef ANYSHAPE_TSAN_BUILD
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace anyshape {

inline void handOffRelease(const void *token) {
#ifdef ANYSHAPE_TSAN_BUILD
  __tsan_release(const_cast<void *>(token));
#else
  (void)token;
#endif
}

inline void handOffAcquire(const void *token) {
#ifdef ANYSHAPE_TSAN_BUILD
  __tsan_acquire(const_cast<void *>(token));
#else
  (void)token;
#endif
}

} // namespace anyshape
