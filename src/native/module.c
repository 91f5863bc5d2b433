// The agent's native addon: what Node cannot do on its own, each in its own file.
//   icmp.c      an ICMP echo socket (Node has none)
//   arrivals.c  arrival times of bytes on TCP sockets, independent of event-loop lag

#define _GNU_SOURCE
#include <dlfcn.h>
#include <node_api.h>

napi_value icmp_init(napi_env env, napi_value exports);
napi_value arrivals_init(napi_env env, napi_value exports);

// Node unloads an addon when the worker thread that loaded it ends (the built-in agent of
// `outpost start` runs in one), before that thread's loop has run the close callbacks of our
// sockets and while the arrivals thread still runs our code: the process crashed at exit.
// Marking the library NODELETE keeps its code mapped for the life of the process.
static void pin_library(void) {
  Dl_info info;
  if (dladdr((void *)pin_library, &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static napi_value init(napi_env env, napi_value exports) {
  pin_library();
  icmp_init(env, exports);
  return arrivals_init(env, exports);
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
