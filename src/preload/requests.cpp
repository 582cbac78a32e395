// The shim's non-blocking and persistent collectives (MPI_I<coll>,
// MPI_<Coll>_init): patcoll's run behind a request the program can treat
// like any other.
//
// The request handed to the program is a proxy: a real MPI request (a
// send to MPI_PROC_NULL: MPI_Isend for a non-blocking collective,
// MPI_Send_init for a persistent one), so it may sit in the same arrays as
// the program's own requests, be converted to Fortran, compared with
// MPI_REQUEST_NULL. The MPI library would call such a request complete at
// once, so the shim replaces every completion call (MPI_Wait, MPI_Test,
// their -all, -any and -some forms, MPI_Request_get_status) and the calls
// that start, free or cancel a request: a proxy reaches the MPI library
// only when patcoll's run behind it is complete, and then completes there
// at once with an empty status. Progress is made inside those calls (and
// by the PAT runtime's thread when it runs). Requests that are not
// proxies go to the MPI library unchanged; with no proxy alive the
// replaced calls go straight to PMPI_*.
//
// MPI forbids MPI_Request_free and MPI_Cancel on a non-blocking
// collective's request and on an active persistent one (MPI-4.0 §5.12,
// §5.13): both return MPI_ERR_REQUEST here with a line saying so.
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sched.h>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpi/dispatch.hpp"
#include "mpi/error.hpp"
#include "mpi/handle.hpp"
#include "shim.hpp"

namespace patcoll::preload {
namespace {

struct Proxy {
  std::unique_ptr<mpi::Handle> handle;
  MPI_Comm comm = MPI_COMM_NULL;  // the collective's: its error handler hears the run's errors
  int collective = 0;
  bool persistent = false;
  bool started = false;  // persistent: started and not yet completed at the MPI library
  bool complete = false;  // patcoll's run is complete; rc is its result
  int rc = MPI_SUCCESS;
};

std::mutex g_mutex;
std::unordered_map<MPI_Request, std::shared_ptr<Proxy>> g_proxies;
std::atomic<int> g_live{0};  // proxies alive: 0 lets every replaced call go straight to PMPI_*

std::shared_ptr<Proxy> find(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_proxies.find(request);
  return it == g_proxies.end() ? nullptr : it->second;
}

void forget(MPI_Request request) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_proxies.erase(request)) g_live.fetch_sub(1);
}

// The run behind an active proxy is complete (progressing it without
// blocking when `block` is false).
bool run_complete(Proxy &proxy, bool block) {
  if (proxy.complete) return true;
  if (proxy.persistent && !proxy.started) return true;  // inactive: complete for MPI
  if (block) {
    proxy.rc = proxy.handle->wait();
    proxy.complete = true;
    return true;
  }
  bool done = false;
  const int rc = proxy.handle->test(done);
  if (done) {
    proxy.rc = rc;
    proxy.complete = true;
  }
  return done;
}

// A completed run's proxy completes at the MPI library (an empty status);
// the run's error, if any, goes into the status and is returned.
int finish(MPI_Request &request, const std::shared_ptr<Proxy> &proxy, MPI_Status *status) {
  const MPI_Request proxy_request = request;
  int rc = PMPI_Wait(&request, status);
  if (proxy->persistent) {
    proxy->started = false;
  } else {
    forget(proxy_request);
  }
  const int run_rc = proxy->rc;
  proxy->complete = false;
  proxy->rc = MPI_SUCCESS;
  if (run_rc != MPI_SUCCESS) {
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = run_rc;
    rc = run_rc;
  }
  return rc;
}

// An error of a completion call: MPI raises it on the request's
// communicator.
int raise(const std::shared_ptr<Proxy> &proxy, int rc) {
  if (rc == MPI_SUCCESS) return rc;
  return raise_error(proxy->collective, proxy->comm, rc);
}

int refuse(const char *call, const char *why) {
  return mpi::fail(MPI_ERR_REQUEST, std::string(call) + ": " + why);
}

// The proxies of an array (nullptr where a request is the program's own).
std::vector<std::shared_ptr<Proxy>> proxies_of(int count, const MPI_Request *requests, bool &any) {
  std::vector<std::shared_ptr<Proxy>> out(static_cast<std::size_t>(count > 0 ? count : 0));
  any = false;
  for (int i = 0; i < count; ++i) {
    out[static_cast<std::size_t>(i)] = find(requests[i]);
    any = any || out[static_cast<std::size_t>(i)];
  }
  return out;
}

MPI_Status *status_at(MPI_Status *statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses + i;
}

// A copy of an array with the proxies replaced by MPI_REQUEST_NULL: what
// the MPI library may complete now.
std::vector<MPI_Request> own_requests(int count, const MPI_Request *requests,
                                      const std::vector<std::shared_ptr<Proxy>> &proxies) {
  std::vector<MPI_Request> own(requests, requests + count);
  for (std::size_t i = 0; i < own.size(); ++i)
    if (proxies[i]) own[i] = MPI_REQUEST_NULL;
  return own;
}

// The end of MPI_Waitall / a successful MPI_Testall: the program's own
// requests as the MPI library left them in `own`, every proxy (its run
// complete) completed at the MPI library. A run's error goes into its
// status and is raised once.
int complete_all(int count, MPI_Request *requests, const std::vector<MPI_Request> &own,
                 const std::vector<std::shared_ptr<Proxy>> &proxies, MPI_Status *statuses) {
  int failed = MPI_SUCCESS;
  std::shared_ptr<Proxy> failing;
  for (int i = 0; i < count; ++i) {
    const std::shared_ptr<Proxy> &proxy = proxies[static_cast<std::size_t>(i)];
    if (!proxy) {
      requests[i] = own[static_cast<std::size_t>(i)];
      continue;
    }
    MPI_Status *status = status_at(statuses, i);
    const int rc = proxy->persistent && !proxy->started ? PMPI_Wait(&requests[i], status)
                                                        : finish(requests[i], proxy, status);
    if (rc != MPI_SUCCESS && failed == MPI_SUCCESS) failed = rc, failing = proxy;
  }
  if (failed == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(failing, statuses == MPI_STATUSES_IGNORE ? failed : MPI_ERR_IN_STATUS);
}

}  // namespace

int adopt(std::unique_ptr<mpi::Handle> handle, int collective, MPI_Comm comm, bool persistent, MPI_Request *request) {
  MPI_Request proxy_request = MPI_REQUEST_NULL;
  const int rc = persistent ? PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &proxy_request)
                            : PMPI_Isend(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &proxy_request);
  if (rc != MPI_SUCCESS) {
    if (!persistent) handle->wait();  // the run is started: complete it before reporting
    return mpi::fail(rc, "could not create the request of a non-blocking or persistent collective");
  }
  auto proxy = std::make_shared<Proxy>();
  proxy->handle = std::move(handle);
  proxy->comm = comm;
  proxy->collective = collective;
  proxy->persistent = persistent;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_proxies[proxy_request] = proxy;
    g_live.fetch_add(1);
  }
  *request = proxy_request;
  return MPI_SUCCESS;
}

int start_proxy(MPI_Request request, bool &was_proxy) {
  std::shared_ptr<Proxy> proxy = find(request);
  was_proxy = proxy != nullptr;
  if (!proxy) return MPI_SUCCESS;
  if (proxy->started) return raise(proxy, refuse("MPI_Start", "the persistent collective is still active"));
  if (int rc = start_handle(*proxy->handle); rc != MPI_SUCCESS) return raise(proxy, rc);
  proxy->started = true;
  MPI_Request r = request;
  return PMPI_Start(&r);
}

}  // namespace patcoll::preload

using patcoll::preload::g_live;
using patcoll::preload::Proxy;

extern "C" {

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !request) return PMPI_Wait(request, status);
  std::shared_ptr<Proxy> proxy = patcoll::preload::find(*request);
  if (!proxy) return PMPI_Wait(request, status);
  patcoll::preload::run_complete(*proxy, true);
  return patcoll::preload::raise(proxy, patcoll::preload::finish(*request, proxy, status));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !request) return PMPI_Test(request, flag, status);
  std::shared_ptr<Proxy> proxy = patcoll::preload::find(*request);
  if (!proxy) return PMPI_Test(request, flag, status);
  if (!patcoll::preload::run_complete(*proxy, false)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  if (proxy->persistent && !proxy->started) return PMPI_Test(request, flag, status);  // inactive
  return patcoll::preload::raise(proxy, patcoll::preload::finish(*request, proxy, status));
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  if (g_live.load(std::memory_order_relaxed) == 0) return PMPI_Request_get_status(request, flag, status);
  std::shared_ptr<Proxy> proxy = patcoll::preload::find(request);
  if (!proxy) return PMPI_Request_get_status(request, flag, status);
  if (!patcoll::preload::run_complete(*proxy, false)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  return PMPI_Request_get_status(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests) return PMPI_Waitall(count, requests, statuses);
  bool any = false;
  auto proxies = patcoll::preload::proxies_of(count, requests, any);
  if (!any) return PMPI_Waitall(count, requests, statuses);
  // patcoll's runs first (the program's own requests are posted and
  // progress inside them), then the program's own, then the proxies.
  for (auto &proxy : proxies)
    if (proxy) patcoll::preload::run_complete(*proxy, true);
  std::vector<MPI_Request> own = patcoll::preload::own_requests(count, requests, proxies);
  const int own_rc = PMPI_Waitall(count, own.data(), statuses);
  const int rc = patcoll::preload::complete_all(count, requests, own, proxies, statuses);
  return rc != MPI_SUCCESS ? rc : own_rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests) return PMPI_Testall(count, requests, flag, statuses);
  bool any = false;
  auto proxies = patcoll::preload::proxies_of(count, requests, any);
  if (!any) return PMPI_Testall(count, requests, flag, statuses);
  bool all = true;
  for (auto &proxy : proxies)
    if (proxy && !patcoll::preload::run_complete(*proxy, false)) all = false;
  if (!all) {  // MPI: nothing completes unless everything does
    *flag = 0;
    return MPI_SUCCESS;
  }
  // The program's own requests decide now; proxies complete only with them.
  std::vector<MPI_Request> own = patcoll::preload::own_requests(count, requests, proxies);
  int own_done = 0;
  if (int rc = PMPI_Testall(count, own.data(), &own_done, statuses); rc != MPI_SUCCESS) return rc;
  *flag = own_done;
  if (!own_done) return MPI_SUCCESS;
  return patcoll::preload::complete_all(count, requests, own, proxies, statuses);
}

// One pass of MPI_Testany over proxies and the program's own requests.
static int test_any(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  bool any = false;
  auto proxies = patcoll::preload::proxies_of(count, requests, any);
  if (!any) return PMPI_Testany(count, requests, index, flag, status);
  bool active_proxy = false;
  for (int i = 0; i < count; ++i) {
    auto &proxy = proxies[static_cast<std::size_t>(i)];
    if (!proxy || (proxy->persistent && !proxy->started)) continue;
    if (patcoll::preload::run_complete(*proxy, false)) {
      *index = i;
      *flag = 1;
      return patcoll::preload::raise(proxy, patcoll::preload::finish(requests[i], proxy, status));
    }
    active_proxy = true;
  }
  std::vector<MPI_Request> own = patcoll::preload::own_requests(count, requests, proxies);
  if (int rc = PMPI_Testany(count, own.data(), index, flag, status); rc != MPI_SUCCESS) return rc;
  if (*flag && *index != MPI_UNDEFINED) {
    requests[*index] = own[static_cast<std::size_t>(*index)];
    return MPI_SUCCESS;
  }
  if (*flag && active_proxy) *flag = 0;  // only the proxies are active, and none is complete
  return MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests) return PMPI_Testany(count, requests, index, flag, status);
  return test_any(count, requests, index, flag, status);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests) return PMPI_Waitany(count, requests, index, status);
  bool any = false;
  patcoll::preload::proxies_of(count, requests, any);
  if (!any) return PMPI_Waitany(count, requests, index, status);
  for (;;) {
    int flag = 0;
    if (int rc = test_any(count, requests, index, &flag, status); rc != MPI_SUCCESS || flag) return rc;
    sched_yield();
  }
}

// One pass of MPI_Testsome: every complete proxy and the program's own.
static int test_some(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  bool any = false;
  auto proxies = patcoll::preload::proxies_of(incount, requests, any);
  if (!any) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  std::vector<MPI_Request> own(requests, requests + incount);
  bool active_proxy = false;
  for (int i = 0; i < incount; ++i) {
    auto &proxy = proxies[static_cast<std::size_t>(i)];
    if (!proxy) continue;
    own[static_cast<std::size_t>(i)] = MPI_REQUEST_NULL;
    if (!(proxy->persistent && !proxy->started)) active_proxy = true;
  }
  int own_count = 0;
  if (int rc = PMPI_Testsome(incount, own.data(), &own_count, indices, statuses); rc != MPI_SUCCESS) return rc;
  int n = own_count == MPI_UNDEFINED ? 0 : own_count;
  for (int k = 0; k < n; ++k) requests[indices[k]] = own[static_cast<std::size_t>(indices[k])];
  int failed = MPI_SUCCESS;
  std::shared_ptr<Proxy> failing;
  for (int i = 0; i < incount; ++i) {
    auto &proxy = proxies[static_cast<std::size_t>(i)];
    if (!proxy || (proxy->persistent && !proxy->started) || !patcoll::preload::run_complete(*proxy, false)) continue;
    indices[n] = i;
    const int rc = patcoll::preload::finish(requests[i], proxy, patcoll::preload::status_at(statuses, n));
    if (rc != MPI_SUCCESS && failed == MPI_SUCCESS) failed = rc, failing = proxy;
    ++n;
  }
  *outcount = n == 0 && own_count == MPI_UNDEFINED && !active_proxy ? MPI_UNDEFINED : n;
  if (failed != MPI_SUCCESS) return patcoll::preload::raise(failing, statuses == MPI_STATUSES_IGNORE ? failed : MPI_ERR_IN_STATUS);
  return MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests)
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  return test_some(incount, requests, outcount, indices, statuses);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests)
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  bool any = false;
  patcoll::preload::proxies_of(incount, requests, any);
  if (!any) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  for (;;) {
    if (int rc = test_some(incount, requests, outcount, indices, statuses); rc != MPI_SUCCESS || *outcount != 0)
      return rc;
    sched_yield();
  }
}

int MPI_Start(MPI_Request *request) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !request) return PMPI_Start(request);
  bool proxy = false;
  const int rc = patcoll::preload::start_proxy(*request, proxy);
  return proxy ? rc : PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[]) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !requests) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i) {
    bool proxy = false;
    int rc = patcoll::preload::start_proxy(requests[i], proxy);
    if (!proxy) rc = PMPI_Start(&requests[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !request) return PMPI_Request_free(request);
  std::shared_ptr<Proxy> proxy = patcoll::preload::find(*request);
  if (!proxy) return PMPI_Request_free(request);
  if (!proxy->persistent)
    return patcoll::preload::raise(
        proxy, patcoll::preload::refuse("MPI_Request_free", "a non-blocking collective's request cannot be freed; "
                                                            "complete it with MPI_Wait or MPI_Test"));
  if (proxy->started)
    return patcoll::preload::raise(
        proxy, patcoll::preload::refuse("MPI_Request_free", "the persistent collective is active; complete it first"));
  const MPI_Request proxy_request = *request;
  const int rc = PMPI_Request_free(request);
  patcoll::preload::forget(proxy_request);
  return rc;
}

int MPI_Cancel(MPI_Request *request) {
  if (g_live.load(std::memory_order_relaxed) == 0 || !request) return PMPI_Cancel(request);
  std::shared_ptr<Proxy> proxy = patcoll::preload::find(*request);
  if (!proxy) return PMPI_Cancel(request);
  return patcoll::preload::raise(proxy, patcoll::preload::refuse("MPI_Cancel", "a collective cannot be cancelled"));
}

}  // extern "C"
