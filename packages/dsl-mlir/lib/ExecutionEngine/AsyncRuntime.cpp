//===- AsyncRuntime.cpp - the runtime of `dsl-to-llvm-cpu{parallel}` ------===//
//
// The C API that MLIR's `convert-async-to-llvm` emits calls to (declared in
// mlir/ExecutionEngine/AsyncRuntime.h), implemented on a fixed pool of
// std::threads, one per hardware thread. Built as libdsl_async_runtime.so
// beside the aggregate CAPI library; JIT'd code that uses it is compiled with
// `dsl_mlir.jit(module, shared_libs=[<that path>])`. Unlike upstream's
// libmlir_async_runtime.so it links no LLVM.
//
// Objects are reference counted. Tokens and values start with two
// references: one for the code that created them (await/drop), one that the
// task releases when it emplaces them. Groups start with one.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#define DSL_RUNTIME_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using Task = std::function<void()>;

/// Whether the current thread is one of the pool's workers.
thread_local bool tlsWorker = false;

/// A fixed set of worker threads taking tasks from one queue.
///
/// A task runs JIT'd code (a coroutine's resumption) and may still be in it
/// for a moment after it made the awaited token available. Had the caller's
/// await returned then, the caller could destroy the engine (unmap its code)
/// under the worker: a rare segfault. The pool counts the tasks queued or
/// running, and a blocking await outside the pool also waits until that
/// count is zero (`quiesce`), i.e. until no worker is in JIT'd code.
class ThreadPool {
public:
  explicit ThreadPool(unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      workers.emplace_back([this] { work(); });
  }
  // Never destroyed (see pool()): workers wait on the queue until exit.
  void submit(Task task) {
    inFlight.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu);
      tasks.push_back(std::move(task));
    }
    ready.notify_one();
  }
  int64_t size() const { return static_cast<int64_t>(workers.size()); }

  /// Waits until no task is queued or running.
  void quiesce() {
    std::unique_lock<std::mutex> lock(idleMu);
    idle.wait(lock, [this] { return inFlight.load() == 0; });
  }

private:
  void work() {
    tlsWorker = true;
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mu);
        ready.wait(lock, [this] { return !tasks.empty(); });
        task = std::move(tasks.front());
        tasks.pop_front();
      }
      task();
      task = nullptr;  // its captures too are released before the count drops
      if (inFlight.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(idleMu);
        idle.notify_all();
      }
    }
  }
  std::mutex mu;
  std::condition_variable ready;
  std::deque<Task> tasks;
  std::vector<std::thread> workers;
  std::atomic<int64_t> inFlight{0};
  std::mutex idleMu;
  std::condition_variable idle;
};

ThreadPool &pool() {
  // Leaked on purpose: joining workers from a static destructor at process
  // exit could wait on tasks of a finished interpreter.
  static ThreadPool *p =
      new ThreadPool(std::max(1u, std::thread::hardware_concurrency()));
  return *p;
}

class RefCounted {
public:
  explicit RefCounted(int64_t refs) : refs(refs) {}
  virtual ~RefCounted() = default;
  void addRef(int64_t n) { refs.fetch_add(n); }
  void dropRef(int64_t n) {
    if (refs.fetch_sub(n) == n)
      delete this;
  }

private:
  std::atomic<int64_t> refs;
};

enum class State { Pending, Ready, Error };

/// A token or value: pending until emplaced (or set to error), then runs
/// the continuations registered while it was pending.
class Awaitable : public RefCounted {
public:
  Awaitable() : RefCounted(/*refs=*/2) {}
  void finish(State s) {
    std::vector<Task> run;
    {
      std::lock_guard<std::mutex> lock(mu);
      state = s;
      run.swap(continuations);
    }
    done.notify_all();
    for (Task &t : run)
      t();
    dropRef(1); // the reference held for the producing task
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [this] { return state != State::Pending; });
  }
  /// Runs `then` now if finished, else when finished.
  void onFinished(Task then) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (state == State::Pending) {
        continuations.push_back(std::move(then));
        return;
      }
    }
    then();
  }
  bool isError() {
    std::lock_guard<std::mutex> lock(mu);
    return state == State::Error;
  }

private:
  std::mutex mu;
  std::condition_variable done;
  State state = State::Pending;
  std::vector<Task> continuations;
};

struct AsyncToken : Awaitable {};

struct AsyncValue : Awaitable {
  explicit AsyncValue(int64_t size) : storage(static_cast<size_t>(size)) {}
  std::vector<std::byte> storage;
};

/// A fixed number of tokens to wait for.
class AsyncGroup : public RefCounted {
public:
  explicit AsyncGroup(int64_t size) : RefCounted(/*refs=*/1), pending(size) {}
  int64_t add() { return rank.fetch_add(1); }
  void tokenFinished(bool error) {
    std::vector<Task> run;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (error)
        ++errors;
      if (--pending != 0)
        return;
      run.swap(continuations);
    }
    done.notify_all();
    for (Task &t : run)
      t();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [this] { return pending == 0; });
  }
  void onFinished(Task then) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (pending != 0) {
        continuations.push_back(std::move(then));
        return;
      }
    }
    then();
  }
  bool isError() {
    std::lock_guard<std::mutex> lock(mu);
    return errors > 0;
  }

private:
  std::mutex mu;
  std::condition_variable done;
  int64_t pending;
  int64_t errors = 0;
  std::atomic<int64_t> rank{0};
  std::vector<Task> continuations;
};

using CoroHandle = void *;
using CoroResume = void (*)(void *);

Task resumeTask(CoroHandle handle, CoroResume resume) {
  return [handle, resume] { resume(handle); };
}

/// After a blocking await outside the pool: no worker is still in JIT'd code
/// once the caller returns to it (see ThreadPool). Workers do not wait: the
/// tasks they would wait for include their own.
void settle() {
  if (!tlsWorker)
    pool().quiesce();
}

} // namespace

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeAddRef(void *object, int64_t count) {
  static_cast<RefCounted *>(object)->addRef(count);
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeDropRef(void *object, int64_t count) {
  static_cast<RefCounted *>(object)->dropRef(count);
}

DSL_RUNTIME_EXPORT AsyncToken *mlirAsyncRuntimeCreateToken() {
  return new AsyncToken();
}

DSL_RUNTIME_EXPORT AsyncValue *mlirAsyncRuntimeCreateValue(int64_t size) {
  return new AsyncValue(size);
}

DSL_RUNTIME_EXPORT AsyncGroup *mlirAsyncRuntimeCreateGroup(int64_t size) {
  return new AsyncGroup(size);
}

DSL_RUNTIME_EXPORT int64_t mlirAsyncRuntimeAddTokenToGroup(AsyncToken *token,
                                                            AsyncGroup *group) {
  int64_t rank = group->add();
  group->addRef(1); // alive until the token finishes
  token->onFinished([token, group] {
    group->tokenFinished(token->isError());
    group->dropRef(1);
  });
  return rank;
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeEmplaceToken(AsyncToken *token) {
  token->finish(State::Ready);
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeEmplaceValue(AsyncValue *value) {
  value->finish(State::Ready);
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeSetTokenError(AsyncToken *token) {
  token->finish(State::Error);
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeSetValueError(AsyncValue *value) {
  value->finish(State::Error);
}

DSL_RUNTIME_EXPORT bool mlirAsyncRuntimeIsTokenError(AsyncToken *token) {
  return token->isError();
}

DSL_RUNTIME_EXPORT bool mlirAsyncRuntimeIsValueError(AsyncValue *value) {
  return value->isError();
}

DSL_RUNTIME_EXPORT bool mlirAsyncRuntimeIsGroupError(AsyncGroup *group) {
  return group->isError();
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeAwaitToken(AsyncToken *token) {
  token->wait();
  settle();
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeAwaitValue(AsyncValue *value) {
  value->wait();
  settle();
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeAwaitAllInGroup(AsyncGroup *group) {
  group->wait();
  settle();
}

DSL_RUNTIME_EXPORT std::byte *mlirAsyncRuntimeGetValueStorage(AsyncValue *value) {
  return value->storage.data();
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimeExecute(CoroHandle handle,
                                                CoroResume resume) {
  pool().submit(resumeTask(handle, resume));
}

DSL_RUNTIME_EXPORT void
mlirAsyncRuntimeAwaitTokenAndExecute(AsyncToken *token, CoroHandle handle,
                                     CoroResume resume) {
  token->onFinished(resumeTask(handle, resume));
}

DSL_RUNTIME_EXPORT void
mlirAsyncRuntimeAwaitValueAndExecute(AsyncValue *value, CoroHandle handle,
                                     CoroResume resume) {
  value->onFinished(resumeTask(handle, resume));
}

DSL_RUNTIME_EXPORT void
mlirAsyncRuntimeAwaitAllInGroupAndExecute(AsyncGroup *group, CoroHandle handle,
                                          CoroResume resume) {
  group->onFinished(resumeTask(handle, resume));
}

// (sic: the name MLIR's lowering calls.)
DSL_RUNTIME_EXPORT int64_t mlirAsyncRuntimGetNumWorkerThreads() {
  return pool().size();
}

DSL_RUNTIME_EXPORT void mlirAsyncRuntimePrintCurrentThreadId() {
  std::printf("Current thread id: %zu\n",
              std::hash<std::thread::id>()(std::this_thread::get_id()));
  std::fflush(stdout);
}
