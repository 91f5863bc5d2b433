// The agent's native addon: what Node cannot do on its own, each in its own file.
//   icmp.c      an ICMP echo socket (Node has none)
//   arrivals.c  arrival times of bytes on TCP sockets, independent of event-loop lag

#include <node_api.h>

napi_value icmp_init(napi_env env, napi_value exports);
napi_value arrivals_init(napi_env env, napi_value exports);

static napi_value init(napi_env env, napi_value exports) {
  icmp_init(env, exports);
  return arrivals_init(env, exports);
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
