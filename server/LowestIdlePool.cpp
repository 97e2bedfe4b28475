// The pool's hand-over (LowestIdlePool.h): enqueue gives a task to the
// lowest idle worker directly; a worker that finishes takes the oldest
// queued task, or marks itself idle, and only then runs the task's
// answer. One lock guards every hand-over, so a task is never both queued
// and handed to an idle worker. A task handed over while the answer runs
// waits for it (the reply is queued to gRPC, microseconds). A worker
// other than 0 that waits `retireAfter` with nothing handed over leaves
// work(); its Worker stays, idle and not running, for enqueue to restart.
#include "server/LowestIdlePool.h"

#include <system_error>

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
  start(*workers_[0], 0); // thread 0 never retires: nothing to join
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

std::thread LowestIdlePool::start(Worker &worker, int index) {
  std::thread fresh([this, index] { work(index); }); // may throw
  std::thread retired = std::move(worker.thread);
  worker.running = true;
  worker.thread = std::move(fresh);
  return retired;
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
  std::thread retired;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Worker *chosen = nullptr;
    int index = 0;
    for (; index < static_cast<int>(workers_.size()); ++index)
      if (workers_[static_cast<size_t>(index)]->idle) {
        chosen = workers_[static_cast<size_t>(index)].get();
        break;
      }
    if (chosen && !chosen->running) {
      try {
        retired = start(*chosen, index);
      } catch (const std::system_error &) {
        chosen = nullptr; // no thread to be had: a busy one takes it later
      }
    }
    if (!chosen) {
      queue_.push_back(std::move(task));
      return;
    }
    chosen->idle = false;
    chosen->task = std::move(task);
    chosen->wake.notify_one();
  }
  // A retired thread has left work() and is only ending: joined off the
  // lock, since its exit frees its OpenMP team.
  if (retired.joinable())
    retired.join();
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
