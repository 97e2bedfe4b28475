// The fake driver's contexts, memory, streams, modules and launches: it
// checks what the runtime asks of it as a strict driver would, and more.
//   - Every call but the probe needs a current context (cuCtxSetCurrent
//     of the primary context) on the calling thread.
//   - Device memory is host memory the fake tracks: a copy must stay
//     inside one live allocation; $FAKE_CUDA_MEMORY_BYTES bounds the total
//     (out of memory beyond it).
//   - A module must be a cubin (ELF), and a function must be named in it.
//   - A launch needs a live function on a stream the runtime created (the
//     default stream is refused: each execution has its own), a grid of
//     1..2^31-1 x 65535 x 65535 blocks of at most 1024 threads and 48 KiB
//     of shared memory, and parameters where the kernel takes some.
//   - Copies and launches are queued on their stream and run only when it
//     is synchronised, so output read before a synchronise is stale.
//     Parameters are copied at the launch (8 bytes each: the runtime's
//     words), as CUDA does.
//   - A launch runs the kernel's CPU emulation when the runtime gave one
//     (anyshapeFakeCudaEmulate); otherwise it is only counted.
//   - An event is stamped with the host's clock when its stream reaches
//     it; its elapsed time is NOT_READY until both ends are stamped.
// Counters for tests: anyshapeFakeCuda{LiveAllocations,LiveModules,
// LivePinned,LiveEvents,Launches,EmulatedLaunches,PendingOperations}.
#include "FakeCuda.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace fake_cuda {
namespace {

using DevicePointer = unsigned long long;

struct Function {
  void *module;
  std::string name;
  void (*emulation)(void **) = nullptr;
  int parameters = 0;
};

struct Event {
  bool stamped = false; ///< its stream has reached its last record
  std::chrono::steady_clock::time_point at;
};

struct State {
  std::mutex mutex;
  int primaryContext = 0; // its address is the context handle
  std::map<DevicePointer, size_t> allocations;
  size_t allocatedBytes = 0;
  std::set<void *> pinned;
  std::map<void *, std::string> modules; // handle -> image
  std::map<void *, std::unique_ptr<Function>> functions;
  std::map<void *, std::deque<std::function<void()>>> streams;
  std::map<void *, std::shared_ptr<Event>> events;
  int64_t launches = 0, emulatedLaunches = 0;
};

State &state() {
  static State s;
  return s;
}

thread_local void *currentContext = nullptr;

bool hasContext() {
  return initialised && currentContext == &state().primaryContext;
}

size_t memoryLimit() {
  const char *limit = std::getenv("FAKE_CUDA_MEMORY_BYTES");
  return limit ? std::strtoull(limit, nullptr, 10) : size_t{141} << 30;
}

/// [pointer, pointer + bytes) lies inside one live allocation.
bool insideAllocation(const State &s, DevicePointer pointer, size_t bytes) {
  auto it = s.allocations.upper_bound(pointer);
  if (it == s.allocations.begin())
    return false;
  --it;
  return pointer + bytes <= it->first + it->second;
}

/// Runs every operation queued on one stream, in order.
void drain(std::deque<std::function<void()>> &operations) {
  while (!operations.empty()) {
    operations.front()();
    operations.pop_front();
  }
}

/// Queues `operation` on `stream` (the caller holds the mutex).
int enqueue(State &s, void *stream, std::function<void()> operation) {
  auto queue = s.streams.find(stream);
  if (queue == s.streams.end())
    return kInvalidHandle;
  queue->second.push_back(std::move(operation));
  return kSuccess;
}

} // namespace
} // namespace fake_cuda

using namespace fake_cuda;

extern "C" {

int cuDevicePrimaryCtxRetain(void **context, int device) {
  record("cuDevicePrimaryCtxRetain");
  if (!initialised)
    return kNotInitialized;
  if (device != 0)
    return kInvalidDevice;
  *context = &state().primaryContext;
  return kSuccess;
}

int cuCtxSetCurrent(void *context) {
  record("cuCtxSetCurrent");
  if (context && context != &state().primaryContext)
    return kInvalidContext;
  currentContext = context;
  return kSuccess;
}

int cuStreamCreate(void **stream, unsigned int) {
  record("cuStreamCreate");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  *stream = new char; // a distinct handle
  s.streams[*stream];
  return kSuccess;
}

int cuStreamDestroy_v2(void *stream) {
  record("cuStreamDestroy_v2");
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.streams.find(stream);
  if (it == s.streams.end())
    return kInvalidHandle;
  drain(it->second);
  s.streams.erase(it);
  delete static_cast<char *>(stream);
  return kSuccess;
}

int cuStreamSynchronize(void *stream) {
  record("cuStreamSynchronize");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.streams.find(stream);
  if (it == s.streams.end())
    return kInvalidHandle;
  drain(it->second);
  return kSuccess;
}

int cuMemAlloc_v2(DevicePointer *pointer, size_t bytes) {
  record("cuMemAlloc_v2");
  if (!hasContext())
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (s.allocatedBytes + bytes > memoryLimit())
    return kOutOfMemory;
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return kOutOfMemory;
  *pointer = reinterpret_cast<DevicePointer>(memory);
  s.allocations[*pointer] = bytes;
  s.allocatedBytes += bytes;
  return kSuccess;
}

int cuMemFree_v2(DevicePointer pointer) {
  record("cuMemFree_v2");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  // cuMemFree waits for the device: everything queued runs first.
  for (auto &[stream, operations] : s.streams)
    drain(operations);
  auto it = s.allocations.find(pointer);
  if (it == s.allocations.end())
    return kInvalidValue;
  s.allocatedBytes -= it->second;
  std::free(reinterpret_cast<void *>(pointer));
  s.allocations.erase(it);
  return kSuccess;
}

int cuMemHostAlloc(void **pointer, size_t bytes, unsigned int) {
  record("cuMemHostAlloc");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  *pointer = std::malloc(bytes ? bytes : 1);
  s.pinned.insert(*pointer);
  return kSuccess;
}

int cuMemFreeHost(void *pointer) {
  record("cuMemFreeHost");
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!s.pinned.erase(pointer))
    return kInvalidValue;
  std::free(pointer);
  return kSuccess;
}

int cuMemcpyHtoD_v2(DevicePointer destination, const void *source,
                    size_t bytes) {
  record("cuMemcpyHtoD_v2");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!insideAllocation(s, destination, bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return kSuccess;
}

int cuMemcpyHtoDAsync_v2(DevicePointer destination, const void *source,
                         size_t bytes, void *stream) {
  record("cuMemcpyHtoDAsync_v2");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!insideAllocation(s, destination, bytes))
    return kInvalidValue;
  return enqueue(s, stream, [=] {
    std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  });
}

int cuMemcpyDtoHAsync_v2(void *destination, DevicePointer source, size_t bytes,
                         void *stream) {
  record("cuMemcpyDtoHAsync_v2");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!insideAllocation(s, source, bytes))
    return kInvalidValue;
  return enqueue(s, stream, [=] {
    std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  });
}

int cuMemcpyDtoDAsync_v2(DevicePointer destination, DevicePointer source,
                         size_t bytes, void *stream) {
  record("cuMemcpyDtoDAsync_v2");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!insideAllocation(s, source, bytes) ||
      !insideAllocation(s, destination, bytes))
    return kInvalidValue;
  return enqueue(s, stream, [=] {
    std::memmove(reinterpret_cast<void *>(destination),
                 reinterpret_cast<const void *>(source), bytes);
  });
}

int cuMemsetD32Async(DevicePointer destination, unsigned int value,
                     size_t count, void *stream) {
  record("cuMemsetD32Async");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!insideAllocation(s, destination, count * 4))
    return kInvalidValue;
  return enqueue(s, stream, [=] {
    auto *words = reinterpret_cast<uint32_t *>(destination);
    for (size_t k = 0; k < count; ++k)
      words[k] = value;
  });
}

int cuModuleLoadData(void **module, const void *image) {
  record("cuModuleLoadData");
  if (!hasContext())
    return kInvalidContext;
  if (!image || std::memcmp(image,
                            "\x7f"
                            "ELF",
                            4) != 0)
    return kInvalidImage; // PTX or garbage: the runtime loads cubins
  // An ELF's size is in its header: section headers end the file
  // (e_shoff at 0x28, e_shentsize at 0x3a, e_shnum at 0x3c).
  const auto *bytes = static_cast<const unsigned char *>(image);
  uint64_t sectionsAt;
  uint16_t entrySize, entries;
  std::memcpy(&sectionsAt, bytes + 0x28, 8);
  std::memcpy(&entrySize, bytes + 0x3a, 2);
  std::memcpy(&entries, bytes + 0x3c, 2);
  size_t size = sectionsAt + size_t{entrySize} * entries;
  State &s = state();
  std::lock_guard lock(s.mutex);
  *module = new char;
  s.modules[*module] = std::string(static_cast<const char *>(image), size);
  return kSuccess;
}

int cuModuleUnload(void *module) {
  record("cuModuleUnload");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (!s.modules.erase(module))
    return kInvalidHandle;
  for (auto it = s.functions.begin(); it != s.functions.end();)
    it = it->second->module == module ? s.functions.erase(it) : std::next(it);
  delete static_cast<char *>(module);
  return kSuccess;
}

int cuModuleGetFunction(void **function, void *module, const char *name) {
  record("cuModuleGetFunction");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.modules.find(module);
  if (it == s.modules.end())
    return kInvalidHandle;
  // The entry's name is in the cubin's string table.
  std::string needle = std::string(name) + '\0';
  if (it->second.find(needle) == std::string::npos)
    return kNotFound;
  auto f = std::make_unique<Function>();
  f->module = module;
  f->name = name;
  *function = f.get();
  s.functions[f.get()] = std::move(f);
  return kSuccess;
}

int cuLaunchKernel(void *function, unsigned int gridX, unsigned int gridY,
                   unsigned int gridZ, unsigned int blockX, unsigned int blockY,
                   unsigned int blockZ, unsigned int sharedBytes, void *stream,
                   void **parameters, void **extra) {
  record("cuLaunchKernel");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto f = s.functions.find(function);
  auto queue = s.streams.find(stream);
  if (f == s.functions.end() || queue == s.streams.end())
    return kInvalidHandle;
  uint64_t threads = uint64_t{blockX} * blockY * blockZ;
  if (gridX < 1 || gridX > 0x7fffffffu || gridY < 1 || gridY > 65535 ||
      gridZ < 1 || gridZ > 65535 || blockX < 1 || blockX > 1024 || blockY < 1 ||
      blockY > 1024 || blockZ < 1 || blockZ > 64 || extra != nullptr)
    return kInvalidValue;
  if (threads > 1024 || sharedBytes > 48 * 1024)
    return kLaunchOutOfResources;
  const Function &kernel = *f->second;
  if (kernel.parameters > 0 && !parameters)
    return kInvalidValue;
  ++s.launches;
  if (!kernel.emulation)
    return kSuccess;
  // Parameters are values at the launch; the grid follows them.
  std::vector<int64_t> words(static_cast<size_t>(kernel.parameters) + 6);
  for (int i = 0; i < kernel.parameters; ++i) {
    if (!parameters[i])
      return kInvalidValue;
    std::memcpy(&words[i], parameters[i], 8);
  }
  int64_t *grid = words.data() + kernel.parameters;
  grid[0] = gridX, grid[1] = gridY, grid[2] = gridZ;
  grid[3] = blockX, grid[4] = blockY, grid[5] = blockZ;
  auto emulation = kernel.emulation;
  queue->second.push_back([words = std::move(words), emulation, &s]() mutable {
    std::vector<void *> pointers;
    for (int64_t &word : words)
      pointers.push_back(&word);
    emulation(pointers.data());
    ++s.emulatedLaunches;
  });
  return kSuccess;
}

int cuEventCreate(void **event, unsigned int) {
  record("cuEventCreate");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto created = std::make_shared<Event>();
  *event = created.get();
  s.events[*event] = std::move(created);
  return kSuccess;
}

int cuEventRecord(void *event, void *stream) {
  record("cuEventRecord");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.events.find(event);
  if (it == s.events.end())
    return kInvalidHandle;
  std::shared_ptr<Event> e = it->second;
  e->stamped = false;
  // The queued stamp holds the event: CUDA lets it be destroyed before
  // its stream reaches it.
  return enqueue(s, stream, [e] {
    e->at = std::chrono::steady_clock::now();
    e->stamped = true;
  });
}

int cuEventElapsedTime(float *milliseconds, void *start, void *end) {
  record("cuEventElapsedTime");
  if (!hasContext())
    return kInvalidContext;
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto from = s.events.find(start), to = s.events.find(end);
  if (from == s.events.end() || to == s.events.end() || !milliseconds)
    return kInvalidHandle;
  if (!from->second->stamped || !to->second->stamped)
    return kNotReady;
  *milliseconds = std::chrono::duration<float, std::milli>(to->second->at -
                                                           from->second->at)
                      .count();
  return kSuccess;
}

int cuEventDestroy_v2(void *event) {
  record("cuEventDestroy_v2");
  State &s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.events.find(event);
  if (it == s.events.end())
    return kInvalidHandle;
  s.events.erase(it);
  return kSuccess;
}

/// The runtime's hook (CudaDriver.h, Driver::fakeEmulate): `function`'s
/// launches run `emulation`.
void anyshapeFakeCudaEmulate(void *function, void (*emulation)(void **),
                             int parameters) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  if (auto f = s.functions.find(function); f != s.functions.end()) {
    f->second->emulation = emulation;
    f->second->parameters = parameters;
  }
}

/// For the fake cuBLASLt (FakeCublasLt.cpp): runs `run(argument)` in
/// `stream`'s order; checks that `bytes` at `pointer` are device memory.
int anyshapeFakeCudaEnqueue(void *stream, void (*run)(void *), void *argument) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return enqueue(s, stream, [=] { run(argument); });
}

int anyshapeFakeCudaIsDeviceMemory(DevicePointer pointer, size_t bytes) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return insideAllocation(s, pointer, bytes) ? 1 : 0;
}

int64_t anyshapeFakeCudaLiveAllocations() {
  std::lock_guard lock(state().mutex);
  return static_cast<int64_t>(state().allocations.size());
}
int64_t anyshapeFakeCudaLiveModules() {
  std::lock_guard lock(state().mutex);
  return static_cast<int64_t>(state().modules.size());
}
int64_t anyshapeFakeCudaLivePinned() {
  std::lock_guard lock(state().mutex);
  return static_cast<int64_t>(state().pinned.size());
}
int64_t anyshapeFakeCudaLiveEvents() {
  std::lock_guard lock(state().mutex);
  return static_cast<int64_t>(state().events.size());
}
int64_t anyshapeFakeCudaLaunches() {
  std::lock_guard lock(state().mutex);
  return state().launches;
}
int64_t anyshapeFakeCudaEmulatedLaunches() {
  std::lock_guard lock(state().mutex);
  return state().emulatedLaunches;
}
int64_t anyshapeFakeCudaPendingOperations() {
  std::lock_guard lock(state().mutex);
  int64_t pending = 0;
  for (auto &[stream, operations] : state().streams)
    pending += static_cast<int64_t>(operations.size());
  return pending;
}

} // extern "C"
