// An ICMP echo socket for Node: Node has none, and spawning ping per check costs a process.
//
// The socket is opened unprivileged (SOCK_DGRAM, where net.ipv4.ping_group_range allows it) or
// raw (root or CAP_NET_RAW). It is watched by a libuv poll handle on Node's own loop, so no
// thread is added. Receive times come from the kernel (SO_TIMESTAMPNS), send times are read
// just before sendto, both on CLOCK_REALTIME, so round trips do not include event-loop lag.

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

typedef struct {
  napi_env env;
  napi_ref self;      // weak while idle: JS decides the socket's lifetime
  napi_ref callback;  // onMessage(buffer, address, receivedAtMs)
  napi_async_context async;
  uv_poll_t poll;
  int fd;
  int family;
  int raw;
  int closed;          // fd closed, poll handle closing
  int handle_closed;   // libuv is done with the handle
  int finalized;       // JS is done with the object
} icmp_socket;

static napi_value throw_errno(napi_env env, const char *syscall, int err) {
  napi_value msg, code, error;
  char text[160];
  snprintf(text, sizeof text, "%s: %s", syscall, strerror(err));
  const char *name = err == EPERM ? "EPERM" : err == EACCES ? "EACCES" : err == EAFNOSUPPORT ? "EAFNOSUPPORT"
    : err == EPROTONOSUPPORT ? "EPROTONOSUPPORT" : err == EINVAL ? "EINVAL" : err == ENETUNREACH ? "ENETUNREACH"
    : err == EHOSTUNREACH ? "EHOSTUNREACH" : err == ENOBUFS ? "ENOBUFS" : err == EAGAIN ? "EAGAIN" : "EIO";
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, msg, &error);
  napi_set_named_property(env, error, "code", code);
  napi_throw(env, error);
  return NULL;
}

static double realtime_ms(const struct timespec *ts) {
  return (double)ts->tv_sec * 1e3 + (double)ts->tv_nsec / 1e6;
}

// The memory goes when both libuv and the JS object are done with it, whichever is last.
static void on_closed(uv_handle_t *handle) {
  icmp_socket *s = handle->data;
  s->handle_closed = 1;
  if (s->finalized) free(s);
}

static void stop(icmp_socket *s) {
  if (s->closed) return;
  s->closed = 1;
  uv_poll_stop(&s->poll);
  close(s->fd);
  napi_delete_reference(s->env, s->callback);
  napi_async_destroy(s->env, s->async);
  uv_close((uv_handle_t *)&s->poll, on_closed);
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  icmp_socket *s = handle->data;
  (void)events;
  if (status < 0 || s->closed) return;
  napi_handle_scope scope;
  napi_open_handle_scope(s->env, &scope);
  napi_value callback, recv;
  napi_get_reference_value(s->env, s->callback, &callback);
  napi_get_reference_value(s->env, s->self, &recv);
  if (recv == NULL) napi_get_undefined(s->env, &recv);
  // Drain what is queued, but bounded, so a flood cannot hold the loop.
  for (int i = 0; i < 64 && !s->closed; i++) {
    unsigned char data[2048];
    unsigned char control[256];
    struct sockaddr_storage from;
    struct iovec iov = { data, sizeof data };
    struct msghdr msg = { &from, sizeof from, &iov, 1, control, sizeof control, 0 };
    ssize_t n = recvmsg(s->fd, &msg, MSG_DONTWAIT);
    if (n < 0) break;
    struct timespec at = { 0, 0 };
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) memcpy(&at, CMSG_DATA(c), sizeof at);
    }
    if (at.tv_sec == 0) clock_gettime(CLOCK_REALTIME, &at);
    char address[INET6_ADDRSTRLEN] = "";
    if (from.ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)&from)->sin_addr, address, sizeof address);
    else if (from.ss_family == AF_INET6) inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&from)->sin6_addr, address, sizeof address);
    napi_value argv[3];
    void *copy;
    napi_create_buffer_copy(s->env, (size_t)n, data, &copy, &argv[0]);
    napi_create_string_utf8(s->env, address, NAPI_AUTO_LENGTH, &argv[1]);
    napi_create_double(s->env, realtime_ms(&at), &argv[2]);
    napi_value ignored;
    if (napi_make_callback(s->env, s->async, recv, callback, 3, argv, &ignored) != napi_ok) {
      // An exception in the callback goes to Node's uncaught handler, as for any I/O callback.
      napi_value exception;
      if (napi_get_and_clear_last_exception(s->env, &exception) == napi_ok && exception) napi_fatal_exception(s->env, exception);
      break;
    }
  }
  napi_close_handle_scope(s->env, scope);
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  icmp_socket *s = data;
  s->finalized = 1;
  napi_delete_reference(env, s->self);
  if (!s->closed) stop(s);
  else if (s->handle_closed) free(s);
}

// new IcmpSocket(family: 4 | 6, onMessage)
static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  napi_get_cb_info(env, info, &argc, argv, &self, NULL);
  int32_t family = 4;
  napi_get_value_int32(env, argv[0], &family);
  int domain = family == 6 ? AF_INET6 : AF_INET;
  int proto = family == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
  int raw = 0;
  int fd = socket(domain, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
  int first = errno;
  if (fd < 0) {
    fd = socket(domain, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
    raw = 1;
  }
  if (fd < 0) return throw_errno(env, "socket", errno == EPERM || errno == EACCES ? errno : first);
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  if (raw && family == 4) {
    // Likewise for IPv4: drop all but echo replies (type 0) in the kernel; pinging loopback
    // would otherwise hand us every request we send as well.
    uint32_t filter = ~(1u << 0);
    setsockopt(fd, SOL_RAW, 1 /* ICMP_FILTER */, &filter, sizeof filter);
  }
  if (raw && family == 6) {
    // Only echo replies reach this socket: a raw ICMPv6 socket otherwise sees every neighbour
    // discovery and router packet on the host.
    struct { uint32_t data[8]; } filter;
    memset(&filter, 0xff, sizeof filter);             // block all ...
    filter.data[129 >> 5] &= ~(1u << (129 & 31));   // ... but echo reply
    setsockopt(fd, IPPROTO_ICMPV6, 1 /* ICMP6_FILTER */, &filter, sizeof filter);
  }
  icmp_socket *s = calloc(1, sizeof *s);
  s->env = env;
  s->fd = fd;
  s->family = family == 6 ? 6 : 4;
  s->raw = raw;
  napi_create_reference(env, argv[1], 1, &s->callback);
  napi_value name;
  napi_create_string_utf8(env, "outpost:icmp", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, self, name, &s->async);
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  uv_poll_init(loop, &s->poll, fd);
  s->poll.data = s;
  uv_poll_start(&s->poll, UV_READABLE, on_readable);
  uv_unref((uv_handle_t *)&s->poll); // pending pings keep the process alive by their timers, not the socket
  napi_wrap(env, self, s, finalize, NULL, &s->self);
  napi_value kind;
  napi_create_string_utf8(env, raw ? "raw" : "dgram", NAPI_AUTO_LENGTH, &kind);
  napi_set_named_property(env, self, "kind", kind);
  return self;
}

static icmp_socket *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  napi_get_cb_info(env, info, argc, argv, &self, NULL);
  icmp_socket *s = NULL;
  napi_unwrap(env, self, (void **)&s);
  return s;
}

// socket.send(packet: Buffer, address: string) -> sentAtMs (CLOCK_REALTIME)
static napi_value send_packet(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  icmp_socket *s = unwrap(env, info, &argc, argv);
  if (!s || s->closed) return throw_errno(env, "send", EBADF);
  void *data;
  size_t length;
  napi_get_buffer_info(env, argv[0], &data, &length);
  char address[INET6_ADDRSTRLEN + 1];
  size_t alen;
  napi_get_value_string_utf8(env, argv[1], address, sizeof address, &alen);
  struct sockaddr_storage to;
  socklen_t tolen;
  memset(&to, 0, sizeof to);
  if (s->family == 6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&to;
    a->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, address, &a->sin6_addr) != 1) return throw_errno(env, "send", EINVAL);
    tolen = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&to;
    a->sin_family = AF_INET;
    if (inet_pton(AF_INET, address, &a->sin_addr) != 1) return throw_errno(env, "send", EINVAL);
    tolen = sizeof *a;
  }
  struct timespec at;
  clock_gettime(CLOCK_REALTIME, &at);
  if (sendto(s->fd, data, length, 0, (struct sockaddr *)&to, tolen) < 0) return throw_errno(env, "send", errno);
  napi_value result;
  napi_create_double(env, realtime_ms(&at), &result);
  return result;
}

static napi_value close_socket(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  icmp_socket *s = unwrap(env, info, &argc, NULL);
  if (s) stop(s);
  return NULL;
}

napi_value icmp_init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
    { "send", NULL, send_packet, NULL, NULL, NULL, napi_default, NULL },
    { "close", NULL, close_socket, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_value cls;
  napi_define_class(env, "IcmpSocket", NAPI_AUTO_LENGTH, construct, NULL, 2, methods, &cls);
  napi_set_named_property(env, exports, "IcmpSocket", cls);
  return exports;
}

