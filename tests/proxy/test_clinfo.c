/*
 * The real clinfo through the proxy: the accelOS platform lists the same devices with the same
 * values as the real driver does when clinfo talks to it directly.
 *
 * clinfo runs twice in --raw -a mode (every property, even unsupported ones, one line each):
 * once with OCL_ICD_VENDORS naming only the build's accelos.icd (through the daemon started by
 * the harness) and once with only PoCL's vendor file (direct). Device lines look like
 *     [SUFFIX/N]    CL_DEVICE_NAME    value
 * and are compared by (N, property name), in order. Lines that are not compared:
 *   - platform-level lines (unprefixed, or with the device index "*"): accelOS is its own
 *     platform, so its name, vendor, ICD suffix and extension list are its own;
 *   - the "OCLICD" lines: they describe the ICD loader, which is the same binary in both runs.
 * Device lines whose values differ on purpose are listed in restricted[] below, each with the
 * value the proxy must show instead and the reason; every other device line must match exactly.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#define DIRECT_VENDORS "/etc/OpenCL/vendors/pocl.icd"
#define MAX_LINES 1024

struct device_line {
    char key[160];    /* "N CL_PROPERTY" */
    char value[2048]; /* as printed, trailing blanks removed */
};

struct clinfo_run {
    char suffix[32];
    int devices;      /* value of "#DEVICES" */
    int count;
    struct device_line lines[MAX_LINES];
};

/* Device-level values that accelOS reports differently from the real device, and why. */
static const struct {
    const char *property;
    const char *proxy_value; /* exact value the proxy must print; NULL: see the comment */
    const char *reason;
} restricted[] = {
    {"CL_DEVICE_PARTITION_MAX_SUB_DEVICES", "0", "no sub-devices: partitioning is the scheduler's job"},
    {"CL_DEVICE_PARTITION_PROPERTIES", "CL_NONE", "no sub-devices: clCreateSubDevices is refused"},
    {"CL_DEVICE_PARTITION_AFFINITY_DOMAIN", "", "no sub-devices"},
    {"CL_DEVICE_SVM_CAPABILITIES", "", "SVM pointers cannot cross into the daemon's address space"},
    {"CL_DEVICE_EXECUTION_CAPABILITIES", "CL_EXEC_KERNEL", "native kernels are host functions of the client"},
    /* PoCL sizes global memory from what is free when the runtime starts: the daemon's PoCL
     * started earlier than clinfo's direct one, so the two differ by whatever the machine
     * allocated in between. Compared as "same order of magnitude" (within a factor of 2). */
    {"CL_DEVICE_GLOBAL_MEM_SIZE", NULL, "sized from free memory at runtime start"},
    /* Compared as lists: the real list minus extensions whose host entry points ProxyCL does not
     * offer (hidden_extensions[]). */
    {"CL_DEVICE_EXTENSIONS", NULL, "extensions with host APIs the proxy lacks are hidden"},
    {"CL_DEVICE_EXTENSIONS_WITH_VERSION", NULL, "same list, with versions"},
};

/* Extensions PoCL offers whose host API ProxyCL does not forward (a subset of proxycl/platform.c's
 * hidden list: only those this driver has). */
static const char *const hidden_extensions[] = {"cl_khr_command_buffer"};

static struct clinfo_run direct_run, proxy_run;

/* Under AddressSanitizer the proxy library is instrumented, so the (uninstrumented) clinfo must
 * preload the ASan runtime this test runs with; halt_on_error=0 lets clinfo go on past reports
 * about its own code (Debian's clinfo 3.0.23 overflows a buffer at start-up). */
static void sanitizer_prefix(char *out, size_t cap)
{
    out[0] = '\0';
#if defined(__SANITIZE_ADDRESS__)
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof(line), maps)) {
        char *path = strchr(line, '/');
        if (path && strstr(path, "/libasan.so")) {
            path[strcspn(path, "\n")] = '\0';
            snprintf(out, cap, "LD_PRELOAD='%s' ASAN_OPTIONS=detect_leaks=0:halt_on_error=0 ", path);
            break;
        }
    }
    if (maps)
        fclose(maps);
    ck_assert_msg(out[0], "built with AddressSanitizer, but its runtime is not among the loaded libraries");
#else
    (void)cap;
#endif
}

static void run_clinfo(const char *vendors, bool through_proxy, struct clinfo_run *run)
{
    setenv("OCL_ICD_VENDORS", vendors, 1);
    char cmd[1024] = "";
    if (through_proxy)
        sanitizer_prefix(cmd, sizeof(cmd));
    strncat(cmd, "clinfo --raw -a 2>/dev/null", sizeof(cmd) - strlen(cmd) - 1);
    FILE *out = popen(cmd, "r");
    ck_assert_msg(out != NULL, "cannot run clinfo");
    memset(run, 0, sizeof(*run));
    run->devices = -1;
    static char line[16384];
    while (fgets(line, sizeof(line), out)) {
        size_t len = strcspn(line, "\n");
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\n'))
            len--;
        line[len] = '\0';
        char suffix[32], index[16];
        int used = 0;
        if (line[0] != '[' || sscanf(line, "[%31[^/]/%15[^]]]%n", suffix, index, &used) != 2)
            continue; /* platform-level lines: not compared (see the top comment) */
        if (strcmp(suffix, "OCLICD") == 0)
            continue;
        const char *rest = line + used;
        rest += strspn(rest, " ");
        if (strcmp(index, "*") == 0) {
            if (strncmp(rest, "#DEVICES", 8) == 0)
                run->devices = atoi(rest + 8);
            snprintf(run->suffix, sizeof(run->suffix), "%s", suffix);
            continue;
        }
        ck_assert_int_lt(run->count, MAX_LINES);
        struct device_line *d = &run->lines[run->count++];
        size_t name_len = strcspn(rest, " ");
        snprintf(d->key, sizeof(d->key), "%s %.*s", index, (int)name_len, rest);
        const char *value = rest + name_len;
        value += strspn(value, " ");
        snprintf(d->value, sizeof(d->value), "%s", value);
    }
    int status = pclose(out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 127,
                  "clinfo is not installed (Debian package clinfo); this test needs it");
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clinfo with OCL_ICD_VENDORS=%s exited with %d",
                  vendors, WEXITSTATUS(status));
}

static void run_both(void)
{
    const char *build_vendors = getenv("OCL_ICD_VENDORS");
    ck_assert_ptr_nonnull(build_vendors);
    char saved[1024];
    snprintf(saved, sizeof(saved), "%s", build_vendors);
    run_clinfo(saved, true, &proxy_run);
    run_clinfo(DIRECT_VENDORS, false, &direct_run);
    setenv("OCL_ICD_VENDORS", saved, 1);
}

static int restricted_index(const char *key)
{
    const char *property = strchr(key, ' ') + 1;
    for (size_t i = 0; i < sizeof(restricted) / sizeof(restricted[0]); i++)
        if (strcmp(property, restricted[i].property) == 0)
            return (int)i;
    return -1;
}

static bool is_hidden(const char *token)
{
    for (size_t i = 0; i < sizeof(hidden_extensions) / sizeof(hidden_extensions[0]); i++) {
        size_t n = strlen(hidden_extensions[i]);
        if (strncmp(token, hidden_extensions[i], n) == 0 && (token[n] == '\0' || token[n] == ':'))
            return true;
    }
    return false;
}

/* The blank-separated tokens of list, without hidden extensions, joined by single blanks. */
static void visible_extensions(const char *list, char *out, size_t cap)
{
    char copy[2048];
    snprintf(copy, sizeof(copy), "%s", list);
    out[0] = '\0';
    size_t used = 0;
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (is_hidden(t))
            continue;
        int n = snprintf(out + used, cap - used, "%s%s", used ? " " : "", t);
        ck_assert_int_lt(n, (int)(cap - used));
        used += (size_t)n;
    }
}

START_TEST(test_clinfo_devices_match_direct)
{
    run_both();
    ck_assert_str_eq(proxy_run.suffix, "AOS");
    ck_assert_str_eq(direct_run.suffix, "POCL");
    ck_assert_int_ge(direct_run.devices, 1);
    ck_assert_int_eq(proxy_run.devices, direct_run.devices);
    /* Enough lines that the comparison means something (PoCL's CPU device prints over 100). */
    ck_assert_int_ge(direct_run.count, 100);
    ck_assert_int_eq(proxy_run.count, direct_run.count);
    int restricted_seen = 0;
    for (int i = 0; i < direct_run.count; i++) {
        const struct device_line *want = &direct_run.lines[i], *got = &proxy_run.lines[i];
        ck_assert_str_eq(got->key, want->key);
        int r = restricted_index(want->key);
        if (r < 0) {
            ck_assert_msg(strcmp(got->value, want->value) == 0, "%s: proxy '%s', direct '%s'", want->key,
                          got->value, want->value);
            continue;
        }
        restricted_seen++;
        if (strcmp(restricted[r].property, "CL_DEVICE_GLOBAL_MEM_SIZE") == 0) {
            unsigned long long p = strtoull(got->value, NULL, 0), d = strtoull(want->value, NULL, 0);
            ck_assert_msg(d > 0 && p >= d / 2 && p <= d * 2, "%s: proxy %llu, direct %llu", want->key, p, d);
        } else if (restricted[r].proxy_value) {
            ck_assert_msg(strcmp(got->value, restricted[r].proxy_value) == 0, "%s: proxy '%s', expected '%s' (%s)",
                          want->key, got->value, restricted[r].proxy_value, restricted[r].reason);
        } else {
            char direct_visible[2048], proxy_visible[2048];
            visible_extensions(want->value, direct_visible, sizeof(direct_visible));
            visible_extensions(got->value, proxy_visible, sizeof(proxy_visible));
            ck_assert_str_eq(proxy_visible, direct_visible);
            for (size_t h = 0; h < sizeof(hidden_extensions) / sizeof(hidden_extensions[0]); h++)
                ck_assert_msg(!strstr(got->value, hidden_extensions[h]), "%s still lists %s", want->key,
                              hidden_extensions[h]);
        }
    }
    /* Every restriction was actually exercised, once per device. */
    ck_assert_int_eq(restricted_seen, direct_run.devices * (int)(sizeof(restricted) / sizeof(restricted[0])));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clinfo");
    TCase *tc = tcase_create("clinfo");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_clinfo_devices_match_direct);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
