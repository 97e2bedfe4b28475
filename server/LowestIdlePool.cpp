// The pool's hand-over (LowestIdlePool.h): enqueue gives a task to the
// lowest idle worker directly; a worker that finishes takes the oldest
// queued task, or marks itself idle, and only then runs the task's
// answer. One lock guards every hand-over, so a task is never both queued
// and handed to an idle worker. A task handed over while the answer runs
// waits for it (the reply is queued to gRPC, microseconds). A worker
// other than 0 that waits `retireAfter` with nothing handed over leaves
// work(); its Worker stays, idle and not running, for enqueue to restart.
#include "server/LowestIdlePool.h"

namespace anyshape::server {
namespace {
thread_local int thisThread = -1;
} // namespace

LowestIdlePool::LowestIdlePool(int threads,
                               std::chrono::milliseconds retireAfter)
    : retireAfter_(retireAfter) {
  for (int k = 0; k < (threads < 1 ? 1 : threads); ++k)
    workers_.push_back(std::make_unique<Worker>());
  std::lock_guard<std::mutex> lock(mutex_);
  start(*workers_[0], 0); // thread 0 never retires
}

LowestIdlePool::~LowestIdlePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto &worker : workers_)
      worker->wake.notify_one();
  }
  for (auto &worker : workers_)
    if (worker->thread.joinable())
      worker->thread.join();
}

void LowestIdlePool::start(Worker &worker, int index) {
  // A retired thread has left work() (running is false) and is only
  // ending: joining it takes no lock of ours.
  if (worker.thread.joinable())
    worker.thread.join();
  worker.running = true;
  worker.thread = std::thread([this, index] { work(index); });
}

int LowestIdlePool::runningThreads() {
  std::lock_guard<std::mutex> lock(mutex_);
  int running = 0;
  for (auto &worker : workers_)
    running += worker->running;
  return running;
}

int LowestIdlePool::currentThread() { return thisThread; }

void LowestIdlePool::enqueue(Task task) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t k = 0; k < workers_.size(); ++k) {
    Worker &worker = *workers_[k];
    if (!worker.idle)
      continue;
    worker.idle = false;
    worker.task = std::move(task);
    if (worker.running)
      worker.wake.notify_one();
    else
      start(worker, static_cast<int>(k));
    return;
  }
  queue_.push_back(std::move(task));
}

void LowestIdlePool::work(int index) {
  thisThread = index;
  Worker &self = *workers_[static_cast<size_t>(index)];
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    auto handedOver = [&] { return !self.idle || stopping_; };
    if (index == 0)
      self.wake.wait(lock, handedOver);
    else if (!self.wake.wait_for(lock, retireAfter_, handedOver)) {
      self.running = false; // retire: enqueue starts a new thread
      return;
    }
    if (self.idle) { // stopping, and nothing handed over
      self.running = false;
      return;
    }
    Task task = std::move(self.task);
    lock.unlock();
    Answer answer = task();
    task = nullptr; // its captures die before the lock is taken again
    lock.lock();
    if (!queue_.empty()) {
      self.task = std::move(queue_.front()); // stays busy: runs it next
      queue_.pop_front();
    } else {
      self.idle = true;
    }
    if (answer) {
      lock.unlock();
      answer();
      answer = nullptr;
      lock.lock();
    }
  }
}

} // namespace anyshape::server
