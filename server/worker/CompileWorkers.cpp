// Running one compile in a child process (CompileWorkers.h).
//
// Between fork and exec the child calls only async-signal-safe functions
// (the server is multithreaded): everything exec needs is prepared before
// the fork. The parent pumps the child's stdin, stdout and stderr with
// poll(), so that neither side can block the other, until the child has
// closed its output or the deadline passes.
#include "server/worker/CompileWorkers.h"

#include "runtime/support/Sanitizers.h"
#include "server/Log.h"
#include "server/cache/CacheKey.h"
#include "server/worker/WorkerProtocol.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace anyshape::server {

using Clock = std::chrono::steady_clock;

struct CompileWorkers::Outcome {
  std::string output;    // the child's stdout
  std::string errorTail; // the end of its stderr
  int waitStatus = 0;
  bool jobReceived = false; // the worker wrote kJobReceived (stripped)
  bool pastDeadline = false;
  bool killedAll = false;
  double seconds = 0;
};

namespace {

constexpr size_t kErrorTailBytes = 2048;
// The result holds object code and a graph: far below this.
constexpr size_t kMaxOutputBytes = size_t{4} << 30;

/// What a failed worker last printed on stderr goes to the server's log,
/// never to the client: it may name the server's files (an assertion's
/// source path, the cache directory). Returns the note that ends the
/// client's message.
std::string logLastWords(const std::string &tail, const std::string &failure) {
  std::string text = tail;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  if (text.empty())
    return "";
  size_t cut = text.size() > 400 ? text.size() - 400 : 0;
  logEvent("warning", "compile_worker_failed",
           {{"failure", failure}, {"last_output", text.substr(cut)}});
  return " (its last output is in the server's log)";
}

void closeFd(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

} // namespace

CompileWorkers::~CompileWorkers() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_)
    reap(*spare_, /*kill=*/true);
}

void CompileWorkers::reap(Child &child, bool kill) {
  for (int fd : {child.toChild, child.fromChild, child.errFromChild})
    if (fd >= 0)
      ::close(fd);
  running_.erase(child.pid);
  if (kill)
    ::kill(child.pid, SIGKILL);
  int status;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
}

StatusOr<CompileWorkers::Child> CompileWorkers::spawnLocked() {
  int in[2], result[2], errors[2];
  if (::pipe2(in, O_CLOEXEC) != 0)
    return internalError(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(result, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return internalError(std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(errors, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(result[0]), ::close(result[1]);
    return internalError(std::string("pipe: ") + std::strerror(errno));
  }
  // Prepared before the fork: the child may only make async-signal-safe
  // calls.
  std::string program = options_.program;
  char *argv[] = {program.data(), nullptr};
  rlimit memory{static_cast<rlim_t>(options_.addressSpaceBytes),
                static_cast<rlim_t>(options_.addressSpaceBytes)};
  // The soft limit sends SIGXCPU, the hard one SIGKILL a moment later.
  rlimit cpu{static_cast<rlim_t>(options_.cpuSeconds),
             static_cast<rlim_t>(options_.cpuSeconds + 2)};
  rlimit noCore{0, 0};
  sigset_t none;
  sigemptyset(&none);
  pid_t pid = ::fork();
  if (pid == 0) {
    // The server blocks SIGTERM and SIGINT in every thread for sigwait;
    // exec keeps the mask, and a worker should die of them.
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(in[0], 0);
    ::dup2(result[1], 1);
    ::dup2(errors[1], 2);
    if (!kSanitizedBuild) // runtime/support/Sanitizers.h
      ::setrlimit(RLIMIT_AS, &memory);
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::setrlimit(RLIMIT_CORE, &noCore);
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  int forkError = errno; // before the closes below can change it
  ::close(in[0]);
  ::close(result[1]);
  ::close(errors[1]);
  if (pid < 0) {
    int error = forkError;
    ::close(in[1]), ::close(result[0]), ::close(errors[0]);
    return internalError(std::string("cannot start a compile worker: ") +
                         std::strerror(error));
  }
  running_.insert(pid);
  Child child{pid, in[1], result[0], errors[0]};
  for (int fd : {child.toChild, child.fromChild, child.errFromChild})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  // Object code is megabytes: 1 MiB pipes move it in fewer round trips
  // than the default 64 KiB (best effort; the limit may be lower).
  ::fcntl(child.toChild, F_SETPIPE_SZ, 1 << 20);
  ::fcntl(child.fromChild, F_SETPIPE_SZ, 1 << 20);
  return child;
}

StatusOr<CompileWorkers::Child> CompileWorkers::takeWorker(bool spare,
                                                           bool background) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (killedAll_ || (background && backgroundStopped_))
    return Status(StatusCode::Unavailable,
                  "the server is shutting down; no new compiles");
  std::optional<Child> taken;
  if (spare && spare_) {
    int status;
    if (::waitpid(spare_->pid, &status, WNOHANG) == 0) {
      taken = *spare_;
    } else { // it died waiting (killed from outside): start another
      for (int fd : {spare_->toChild, spare_->fromChild, spare_->errFromChild})
        ::close(fd);
      running_.erase(spare_->pid);
    }
    spare_.reset();
  }
  if (!taken) {
    ANYSHAPE_ASSIGN_OR_RETURN(Child child, spawnLocked());
    taken = child;
  }
  // The next compile's worker starts now, while this one compiles: its
  // exec and library loading are off the next miss's path. A failure
  // only means the next compile starts its own.
  if (!spare_)
    if (StatusOr<Child> next = spawnLocked(); next.isOk())
      spare_ = *next;
  if (background) {
    background_.insert(taken->pid);
    // Its threads, started by its main thread, inherit this.
    ::setpriority(PRIO_PROCESS, taken->pid, 10);
  }
  return *taken;
}

Status CompileWorkers::run(const std::string &input, Clock::time_point deadline,
                           bool spare, bool background, Outcome &out) {
  ANYSHAPE_ASSIGN_OR_RETURN(Child child, takeWorker(spare, background));
  auto start = Clock::now();
  pid_t pid = child.pid;
  int toChild = child.toChild, fromChild = child.fromChild,
      errFromChild = child.errFromChild;

  size_t written = 0;
  std::vector<char> chunk(1 << 20);
  char *buffer = chunk.data();
  while (fromChild >= 0 || errFromChild >= 0) {
    if (toChild >= 0 && written == input.size())
      closeFd(toChild); // the worker reads to the end of its input
    pollfd fds[3];
    int count = 0;
    for (int fd : {toChild, fromChild, errFromChild})
      if (fd >= 0)
        fds[count++] = {
            fd, static_cast<short>(fd == toChild ? POLLOUT : POLLIN), 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left <= 0) {
      out.pastDeadline = true;
      ::kill(pid, SIGKILL);
      break;
    }
    int ready =
        ::poll(fds, count, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      ::kill(pid, SIGKILL); // cannot watch it any more
      break;
    }
    for (int k = 0; k < count && ready > 0; ++k) {
      if (!fds[k].revents)
        continue;
      int fd = fds[k].fd;
      if (fd == toChild) {
        ssize_t n = ::write(fd, input.data() + written, input.size() - written);
        if (n > 0)
          written += static_cast<size_t>(n);
        else if (n < 0 && errno != EAGAIN && errno != EINTR)
          closeFd(toChild); // the worker is gone; its status says why
        continue;
      }
      ssize_t n = ::read(fd, buffer, chunk.size());
      if (n > 0) {
        if (fd == fromChild) {
          out.output.append(buffer, n);
          if (out.output.size() > kMaxOutputBytes)
            ::kill(pid, SIGKILL);
        } else {
          out.errorTail.append(buffer, n);
          if (out.errorTail.size() > 2 * kErrorTailBytes)
            out.errorTail.erase(0, out.errorTail.size() - kErrorTailBytes);
        }
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        closeFd(fd == fromChild ? fromChild : errFromChild);
      }
    }
  }
  closeFd(toChild);
  closeFd(fromChild);
  closeFd(errFromChild);
  {
    // Out of the set before it is reaped: killAll never signals a reused
    // pid (an unreaped child keeps its pid).
    std::lock_guard<std::mutex> guard(mutex_);
    running_.erase(pid);
    background_.erase(pid);
    out.killedAll = killedAll_ || (background && backgroundStopped_);
  }
  // A worker exits right after closing its output; should one linger,
  // the deadline still holds.
  for (;;) {
    pid_t reaped = ::waitpid(pid, &out.waitStatus, WNOHANG);
    if (reaped == pid || (reaped < 0 && errno != EINTR))
      break;
    if (reaped == 0 && Clock::now() >= deadline) {
      out.pastDeadline = true;
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &out.waitStatus, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out.jobReceived = !out.output.empty() && out.output[0] == kJobReceived;
  if (out.jobReceived)
    out.output.erase(0, 1);
  return Status::ok();
}

StatusOr<CachedExecutable> CompileWorkers::compile(v1::CompileJob job,
                                                   const TensorLookup &tensors,
                                                   Clock::time_point deadline,
                                                   bool background) {
  std::vector<const v1::Tensor *> stored;
  auto *ids = job.mutable_stored_tensor_ids();
  for (int k = 0; k < ids->size();) {
    if (const v1::Tensor *tensor = tensors.find(ids->Get(k))) {
      stored.push_back(tensor);
      ++k;
    } else {
      ids->DeleteSubrange(k, 1);
    }
  }
  std::string input;
  appendFramed(job, input);
  for (const v1::Tensor *tensor : stored)
    appendFramed(*tensor, input);

  Outcome out;
  ANYSHAPE_RETURN_IF_ERROR(
      run(input, deadline, /*spare=*/true, background, out));
  // A worker killed before it had the job (a spare killed from outside
  // while it waited: waitpid cannot tell a dying process from a live one)
  // says nothing about the job, which gets one fresh worker.
  if (!out.killedAll && !out.pastDeadline && WIFSIGNALED(out.waitStatus) &&
      !out.jobReceived) {
    out = Outcome();
    ANYSHAPE_RETURN_IF_ERROR(
        run(input, deadline, /*spare=*/false, background, out));
  }
  const int status = out.waitStatus;
  const std::string limits =
      " (worker limits: " + std::to_string(options_.addressSpaceBytes >> 20) +
      " MiB of address space, " + std::to_string(options_.cpuSeconds) +
      " s of CPU)";
  if (out.killedAll) {
    ++metrics_.workerFailures;
    return Status(StatusCode::Unavailable,
                  "the server is shutting down; the compile was stopped");
  }
  if (out.pastDeadline) {
    ++metrics_.workerDeadlineKills;
    return Status(StatusCode::DeadlineExceeded,
                  "the compile passed its deadline after " +
                      std::to_string(static_cast<int>(out.seconds)) +
                      " s; its worker was stopped");
  }
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    bool outOfMemory =
        out.errorTail.find("out of memory") != std::string::npos ||
        out.errorTail.find("bad_alloc") != std::string::npos;
    if (signal == SIGXCPU || (signal == SIGKILL && !outOfMemory &&
                              out.seconds >= options_.cpuSeconds)) {
      ++metrics_.workerLimitKills;
      return resourceExhausted("the compile passed its CPU-time limit" +
                               limits);
    }
    if (outOfMemory) {
      ++metrics_.workerLimitKills;
      return resourceExhausted("the compile ran out of memory" + limits +
                               logLastWords(out.errorTail, "out of memory"));
    }
    ++metrics_.workerFailures;
    if (signal == SIGKILL)
      return internalError(
          "the compile worker was killed (signal 9) from outside the "
          "server, e.g. by the kernel's out-of-memory killer" +
          logLastWords(out.errorTail, "killed"));
    std::string died = "died of signal " + std::to_string(signal) + " (" +
                       strsignal(signal) + ")";
    return internalError("the compile worker " + died +
                         ", an anyshape bug on this graph" +
                         logLastWords(out.errorTail, died));
  }
  v1::CompileJobResult result;
  uint64_t size = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      out.output.size() < sizeof(size) ||
      (std::memcpy(&size, out.output.data(), sizeof(size)),
       size != out.output.size() - sizeof(size)) ||
      !result.ParseFromArray(out.output.data() + sizeof(size),
                             static_cast<int>(size))) {
    ++metrics_.workerFailures;
    return internalError(
        "the compile worker failed (exit status " +
        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
        ") without a result" +
        logLastWords(out.errorTail, "exited without a result"));
  }
  if (result.compiler_identity() != compilerIdentity()) {
    ++metrics_.workerFailures;
    logEvent("error", "compile_worker_mismatch",
             {{"program", options_.program},
              {"worker", result.compiler_identity()},
              {"server", compilerIdentity()}});
    return internalError("the compile worker is from another build than the "
                         "server (the server's log names both)");
  }
  if (result.code() != 0 && statusCodeName(static_cast<StatusCode>(
                                result.code())) == std::string("UNKNOWN")) {
    ++metrics_.workerFailures;
    return internalError("the compile worker answered an unknown status " +
                         std::to_string(result.code()));
  }
  if (result.code() != 0) {
    if (result.code() == static_cast<int>(StatusCode::ResourceExhausted))
      ++metrics_.workerLimitKills;
    return Status(static_cast<StatusCode>(result.code()), result.message());
  }
  GraphLimits compiledUnder; // what the worker validated against
  if (job.max_elements_per_tensor() > 0)
    compiledUnder.maxElementsPerTensor = job.max_elements_per_tensor();
  std::optional<jit::DeviceCode> device;
  if (result.has_device())
    device = deviceCodeFromProto(result.device());
  return loadStored(
      StoredExecutable{std::move(*result.mutable_compiled_graph()),
                       std::move(*result.mutable_info()),
                       std::move(*result.mutable_object_code()),
                       std::move(device)},
      compiledUnder);
}

void CompileWorkers::stopBackground() {
  std::lock_guard<std::mutex> lock(mutex_);
  backgroundStopped_ = true;
  for (pid_t pid : background_)
    ::kill(pid, SIGKILL);
}

void CompileWorkers::killAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  killedAll_ = true;
  for (pid_t pid : running_)
    ::kill(pid, SIGKILL);
  if (spare_) {
    reap(*spare_, /*kill=*/false); // killed just above
    spare_.reset();
  }
}

} // namespace anyshape::server
