/* accelosd: command line, configuration and start-up. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelos/log.h"
#include "accelos/sock.h"
#include "accelos/wire.h"
#include "ops.h"
#include "daemon_config.h"
#include "device_sched.h"
#include "policy.h"
#include "trace.h"
#include "server.h"
#include "vendor.h"

#define DEFAULT_VENDOR_DIR "/etc/OpenCL/vendors"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: accelosd [options]\n"
            "  --socket PATH    listen here (default: $ACCELOS_SOCKET, else\n"
            "                   $XDG_RUNTIME_DIR/accelos/accelosd.sock, or " AOS_SYSTEM_SOCKET_PATH " with --system)\n"
            "  --system         run as the system service: socket directory 0750, socket 0660\n"
            "  --group NAME     with --system: members of group NAME may connect\n"
            "  --vendors DIR    directory of vendor .icd files (default: $ACCELOS_VENDORS or " DEFAULT_VENDOR_DIR ")\n"
            "  --policy P       kernel scheduling: fifo (native launches) or fair (elastic kernels sharing\n"
            "                   the device); default: $ACCELOS_POLICY, else %s\n"
            "  --config FILE    configuration file (default: $ACCELOS_CONFIG); errors stop the daemon,\n"
            "                   naming each bad line (see scheduler/accelosd.conf.example)\n"
            "  --trace FILE     append one JSON line per elastic launch (accelos-report's schema)\n"
            "  --trace-max-mb N  move the trace to FILE.1 when it reaches N MiB and start anew\n"
            "                   (default %u, 0 = no limit)\n"
            "  --no-shared-buffers  keep CPU-device buffers out of the clients' shared memory, so every\n"
            "                   transfer is copied twice, through the staging area (for comparison)\n"
            "  --status         ask the running daemon for its devices and clients, then exit\n"
            "  -v, --verbose    log more (repeat for debug)\n"
            "  --version        print the version\n"
            "  -h, --help       this text\n",
            aos_policy_name(AOS_POLICY_DEFAULT), AOS_TRACE_MAX_MB_DEFAULT);
}

/* fallback: where to ask when nobody listens at path (the system service, as clients do). */
static int print_status(const char *path, const char *fallback)
{
    const char *used;
    int sock = aos_sock_connect_or(path, fallback, &used);
    if (sock < 0) {
        fprintf(stderr, "accelosd: cannot reach a daemon at %s%s%s: %s\n", path, used != path ? " nor at " : "",
                used != path ? used : "", strerror(-sock));
        return 1;
    }
    struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = AOS_HELLO_STATUS};
    struct aos_welcome welcome;
    if (aos_sock_send(sock, &hello, sizeof(hello), -1) < 0 ||
        aos_sock_recv(sock, &welcome, sizeof(welcome), NULL, 2000) < 0 || welcome.status != 0) {
        fprintf(stderr, "accelosd: the daemon at %s refused the status request\n", used);
        close(sock);
        return 1;
    }
    char buf[4096];
    ssize_t n;
    while ((n = read(sock, buf, sizeof(buf))) > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    close(sock);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"socket", required_argument, NULL, 's'}, {"system", no_argument, NULL, 'S'},
        {"group", required_argument, NULL, 'g'},  {"vendors", required_argument, NULL, 'V'},
        {"status", no_argument, NULL, 't'},       {"verbose", no_argument, NULL, 'v'},
        {"policy", required_argument, NULL, 'p'}, {"config", required_argument, NULL, 'c'},
        {"trace", required_argument, NULL, 'T'},  {"trace-max-mb", required_argument, NULL, 'M'},
        {"no-shared-buffers", no_argument, NULL, 'B'},
        {"version", no_argument, NULL, 'r'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct aos_server_config config = {0};
    const char *socket_path = NULL, *vendors = getenv("ACCELOS_VENDORS"), *group = NULL;
    const char *policy = getenv("ACCELOS_POLICY");
    const char *config_file = getenv("ACCELOS_CONFIG");
    const char *trace_path = NULL;
    unsigned long trace_max_mb = AOS_TRACE_MAX_MB_DEFAULT;
    bool status = false;
    int verbosity = AOS_LOG_WARN;
    int c;
    while ((c = getopt_long(argc, argv, "vh", options, NULL)) != -1) {
        switch (c) {
        case 's': socket_path = optarg; break;
        case 'S': config.system_mode = true; break;
        case 'g': group = optarg; break;
        case 'V': vendors = optarg; break;
        case 'p': policy = optarg; break;
        case 'c': config_file = optarg; break;
        case 'T': trace_path = optarg; break;
        case 'M': {
            char *end;
            errno = 0;
            trace_max_mb = strtoul(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-' || trace_max_mb > AOS_TRACE_MAX_MB_MAX) {
                fprintf(stderr, "accelosd: --trace-max-mb: a number of MiB from 0 to %u\n", AOS_TRACE_MAX_MB_MAX);
                return 2;
            }
            break;
        }
        case 'B': config.no_shared_buffers = true; break;
        case 't': status = true; break;
        case 'v': verbosity++; break;
        case 'r': printf("accelosd %s (wire protocol %u)\n", ACCELOS_VERSION, AOS_WIRE_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "accelosd: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    aos_log_set_level(verbosity);
    enum aos_policy chosen = AOS_POLICY_DEFAULT;
    if (policy && *policy && aos_policy_parse(policy, &chosen) < 0) {
        fprintf(stderr, "accelosd: unknown policy '%s' (fifo or fair)\n", policy);
        return 2;
    }
    aos_policy_set(chosen);
    /* An explicit --policy or $ACCELOS_POLICY wins over the file's. */
    if (config_file && *config_file && aos_daemon_config_load(config_file, policy && *policy, stderr) < 0)
        return 2;
    char default_path[108];
    const char *socket_env = getenv("ACCELOS_SOCKET");
    config.own_socket_dir = !socket_path && !(socket_env && *socket_env);
    if (!socket_path) {
        if (config.system_mode)
            socket_path = AOS_SYSTEM_SOCKET_PATH;
        else if (aos_socket_default_path(default_path, sizeof(default_path)) == 0)
            socket_path = default_path;
        else {
            fprintf(stderr, "accelosd: socket path too long\n");
            return 2;
        }
    }
    config.socket_path = socket_path;
    if (status)
        return print_status(socket_path, config.own_socket_dir && !config.system_mode ? aos_socket_fallback_path() : NULL);
    if (group) {
        if (!config.system_mode) {
            fprintf(stderr, "accelosd: --group only applies with --system\n");
            return 2;
        }
        struct group *g = getgrnam(group);
        if (!g) {
            fprintf(stderr, "accelosd: unknown group '%s'\n", group);
            return 2;
        }
        config.allowed_gid = g->gr_gid;
        config.has_allowed_gid = true;
    }
    aos_server_block_signals();
    aos_daemon_config_apply_codegen();
    int devices = aos_vendor_load(vendors && *vendors ? vendors : DEFAULT_VENDOR_DIR);
    if (devices < 0) {
        fprintf(stderr, "accelosd: cannot read vendor directory %s: %s\n", vendors ? vendors : DEFAULT_VENDOR_DIR,
                strerror(-devices));
        return 1;
    }
    if (devices == 0) {
        fprintf(stderr, "accelosd: no OpenCL devices found (is an ICD such as pocl-opencl-icd installed?)\n");
        return 1;
    }
    if (trace_path) {
        char label[64];
        snprintf(label, sizeof(label), "accelosd-%s", aos_policy_name(aos_policy_get()));
        int trc = aos_trace_open(trace_path, label, (uint64_t)trace_max_mb << 20);
        if (trc < 0) {
            fprintf(stderr, "accelosd: cannot open trace file %s: %s\n", trace_path, strerror(-trc));
            return 2;
        }
    }
    aos_dispatch_init();
    aos_log(AOS_LOG_INFO, "main", "scheduling policy %s", aos_policy_name(aos_policy_get()));
    int rc = aos_server_run(&config);
    if (rc < 0) {
        fprintf(stderr, "accelosd: cannot listen on %s: %s\n", socket_path,
                rc == -EADDRINUSE ? "another daemon is already serving it"
                : rc == -EEXIST   ? "it exists and is not a socket"
                                  : strerror(-rc));
        return 1;
    }
    aos_device_sched_shutdown();
    aos_trace_close();
    aos_vendor_unload();
    return 0;
}
