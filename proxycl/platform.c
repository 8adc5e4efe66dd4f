/*
 * The accelOS platform and its devices, mirrored from the daemon's real devices. Device info never
 * changes, so each (device, param) is fetched once and then answered locally.
 *
 * Design note. Values are the real device's, except for capabilities ProxyCL cannot forward:
 * reporting them would only invite calls that fail. Those are sub-devices (partitioning is the
 * scheduler's job), SVM and native kernels (host pointers and host functions cannot cross into
 * the daemon), and extensions whose host entry points ProxyCL does not offer (hidden_extensions).
 * Extensions that only add kernel-language features pass through unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "types.h"

#define PLATFORM_NAME "accelOS"
#define PLATFORM_VENDOR "accelOS"
#define ICD_SUFFIX "AOS"

struct aos_info_cache_entry {
    struct aos_info_cache_entry *next;
    cl_uint param;
    size_t size;
    unsigned char value[];
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_platform_id platform;
static cl_device_id devices[AOS_MAX_DEVICES];
static cl_uint device_total;

static cl_int platform_init(void)
{
    pthread_mutex_lock(&init_lock);
    cl_int err = CL_SUCCESS;
    if (!platform) {
        err = aos_conn_ensure();
        if (err == CL_SUCCESS) {
            device_total = aos_conn_device_count();
            if (device_total > AOS_MAX_DEVICES)
                device_total = AOS_MAX_DEVICES;
            for (cl_uint i = 0; i < device_total; i++) {
                cl_device_id d = aos_object_new_with_id(AOS_OBJ_DEVICE, sizeof(*d), AOS_DEVICE_ID_BASE + i, NULL);
                if (!d)
                    break;
                d->index = i;
                pthread_mutex_init(&d->cache_lock, NULL);
                aos_get_info(AOS_INFO_DEVICE, d->obj.id, 0, CL_DEVICE_TYPE, sizeof(d->type), &d->type, NULL);
                devices[i] = d;
            }
            platform = aos_object_new_with_id(AOS_OBJ_PLATFORM, sizeof(*platform), AOS_PLATFORM_ID, NULL);
            if (!platform)
                err = CL_OUT_OF_HOST_MEMORY;
        }
    }
    pthread_mutex_unlock(&init_lock);
    return err;
}

cl_platform_id aos_platform(void) { return platform; }

static cl_int list_platforms(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
        return CL_INVALID_VALUE;
    cl_uint count = platform_init() == CL_SUCCESS && device_total > 0 ? 1 : 0;
    if (num_platforms)
        *num_platforms = count;
    if (platforms && count)
        platforms[0] = platform;
    /* With no daemon this ICD simply offers no platform; the loader then reports
     * CL_PLATFORM_NOT_FOUND_KHR if it was the only one. */
    return count ? CL_SUCCESS : CL_PLATFORM_NOT_FOUND_KHR;
}

/* Exported for the loader; the hidden clGetPlatformIDs shares the body without calling it, since an
 * exported name could resolve to another library's definition. */
__attribute__((visibility("default"))) cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                                                 cl_platform_id *platforms,
                                                                                 cl_uint *num_platforms)
{
    return list_platforms(num_entries, platforms, num_platforms);
}

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    return list_platforms(num_entries, platforms, num_platforms);
}

/* Extensions with host entry points ProxyCL does not offer (prefixes of their names). */
static const char *const hidden_extensions[] = {
    "cl_khr_command_buffer", /* clCreateCommandBufferKHR and friends */
    "cl_khr_create_command_queue", "cl_khr_il_program", "cl_khr_terminate_context",
    "cl_khr_suggested_local_work_size", "cl_khr_external_", "cl_khr_semaphore",
    "cl_khr_gl_", "cl_khr_egl_", "cl_khr_d3d", "cl_khr_dx9", "cl_intel_unified_shared_memory",
    "cl_pocl_", /* clSetContentSizeBufferPoCL */
};

static bool extension_hidden(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(hidden_extensions) / sizeof(hidden_extensions[0]); i++) {
        size_t n = strlen(hidden_extensions[i]);
        if (len >= n && memcmp(name, hidden_extensions[i], n) == 0)
            return true;
    }
    return false;
}

/* Removes hidden extensions, with the blanks after them, from a blank-separated list in place;
 * everything else keeps its exact spelling. Returns the new size. */
static size_t filter_extension_string(char *list, size_t size)
{
    if (size == 0)
        return 0;
    list[size - 1] = '\0';
    char *out = list;
    for (char *at = list; *at;) {
        char *end = at;
        while (*end && *end != ' ')
            end++;
        while (*end == ' ')
            end++;
        size_t len = (size_t)(end - at);
        if (!extension_hidden(at, strcspn(at, " "))) {
            memmove(out, at, len);
            out += len;
        }
        at = end;
    }
    *out = '\0';
    return (size_t)(out - list) + 1;
}

static size_t filter_extension_versions(cl_name_version *v, size_t size)
{
    size_t n = size / sizeof(*v), kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!extension_hidden(v[i].name, strnlen(v[i].name, CL_NAME_VERSION_MAX_NAME_SIZE)))
            v[kept++] = v[i];
    return kept * sizeof(*v);
}

/* Adjusts a real value to what ProxyCL can deliver (see the design note); returns its new size. */
static size_t restrict_value(uint32_t kind, cl_uint param, void *v, size_t size)
{
    if (kind == AOS_INFO_PLATFORM && param == CL_PLATFORM_EXTENSIONS)
        return filter_extension_string(v, size);
    if (kind == AOS_INFO_PLATFORM && param == CL_PLATFORM_EXTENSIONS_WITH_VERSION)
        return filter_extension_versions(v, size);
    if (kind != AOS_INFO_DEVICE)
        return size;
    switch (param) {
    case CL_DEVICE_EXTENSIONS:
        return filter_extension_string(v, size);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        return filter_extension_versions(v, size);
    case CL_DEVICE_EXECUTION_CAPABILITIES:
        if (size == sizeof(cl_device_exec_capabilities))
            *(cl_device_exec_capabilities *)v &= ~(cl_device_exec_capabilities)CL_EXEC_NATIVE_KERNEL;
        return size;
    case CL_DEVICE_SVM_CAPABILITIES:
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
        memset(v, 0, size);
        return size;
    case CL_DEVICE_PARTITION_PROPERTIES:
        /* "No partition types": a list holding only the 0 terminator. */
        if (size >= sizeof(cl_device_partition_property)) {
            memset(v, 0, sizeof(cl_device_partition_property));
            return sizeof(cl_device_partition_property);
        }
        return size;
    default:
        return size;
    }
}

/* Fetches a whole info value from the daemon into a malloc'ed buffer (*v, NULL when empty) and
 * restricts it. A value of size 0 is legal (an empty list) and needs no second query. */
static cl_int fetch_info(uint32_t kind, uint64_t id, cl_uint param, void **v, size_t *v_size)
{
    size_t need = 0;
    *v = NULL;
    *v_size = 0;
    cl_int err = aos_get_info(kind, id, 0, param, 0, NULL, &need);
    if (err != CL_SUCCESS || need == 0)
        return err;
    void *buf = malloc(need);
    if (!buf)
        return CL_OUT_OF_HOST_MEMORY;
    err = aos_get_info(kind, id, 0, param, need, buf, NULL);
    if (err != CL_SUCCESS) {
        free(buf);
        return err;
    }
    *v = buf;
    *v_size = restrict_value(kind, param, buf, need);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info param, size_t size, void *value,
                                     size_t *size_ret)
{
    if (p != platform || !platform)
        return CL_INVALID_PLATFORM;
    switch (param) {
    case CL_PLATFORM_NAME:
        return aos_info_value(PLATFORM_NAME, sizeof(PLATFORM_NAME), size, value, size_ret);
    case CL_PLATFORM_VENDOR:
        return aos_info_value(PLATFORM_VENDOR, sizeof(PLATFORM_VENDOR), size, value, size_ret);
    case CL_PLATFORM_ICD_SUFFIX_KHR:
        return aos_info_value(ICD_SUFFIX, sizeof(ICD_SUFFIX), size, value, size_ret);
    case CL_PLATFORM_EXTENSIONS:
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
        void *v = NULL;
        size_t v_size = 0;
        cl_int err = fetch_info(AOS_INFO_PLATFORM, AOS_PLATFORM_ID, param, &v, &v_size);
        if (err == CL_SUCCESS)
            err = aos_info_value(v, v_size, size, value, size_ret);
        free(v);
        return err;
    }
    default:
        return aos_get_info(AOS_INFO_PLATFORM, AOS_PLATFORM_ID, 0, param, size, value, size_ret);
    }
}

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint num_entries, cl_device_id *out,
                                  cl_uint *num_devices)
{
    if (p != platform || !platform)
        return CL_INVALID_PLATFORM;
    if ((num_entries == 0 && out) || (!out && !num_devices))
        return CL_INVALID_VALUE;
    const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
    if (type != CL_DEVICE_TYPE_ALL && (type & ~known))
        return CL_INVALID_DEVICE_TYPE;
    cl_uint n = 0;
    for (cl_uint i = 0; i < device_total; i++) {
        bool match = type == CL_DEVICE_TYPE_ALL || (devices[i]->type & type) ||
                     ((type & CL_DEVICE_TYPE_DEFAULT) && n == 0 && i == 0);
        if (!match)
            continue;
        if (out && n < num_entries)
            out[n] = devices[i];
        n++;
    }
    if (num_devices)
        *num_devices = n;
    return n ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

bool aos_device_valid(cl_device_id d)
{
    return aos_object_valid(d, AOS_OBJ_DEVICE);
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_device_valid(d))
        return CL_INVALID_DEVICE;
    if (param == CL_DEVICE_PLATFORM)
        return aos_info_value(&platform, sizeof(platform), size, value, size_ret);
    if (param == CL_DEVICE_PARENT_DEVICE) {
        cl_device_id none = NULL;
        return aos_info_value(&none, sizeof(none), size, value, size_ret);
    }
    if (param == CL_DEVICE_REFERENCE_COUNT) {
        cl_uint one = 1;
        return aos_info_value(&one, sizeof(one), size, value, size_ret);
    }
    pthread_mutex_lock(&d->cache_lock);
    struct aos_info_cache_entry *e = d->cache;
    while (e && e->param != param)
        e = e->next;
    pthread_mutex_unlock(&d->cache_lock);
    if (!e) {
        void *v = NULL;
        size_t v_size = 0;
        cl_int err = fetch_info(AOS_INFO_DEVICE, d->obj.id, param, &v, &v_size);
        if (err != CL_SUCCESS)
            return err;
        e = malloc(sizeof(*e) + v_size);
        if (!e) {
            free(v);
            return CL_OUT_OF_HOST_MEMORY;
        }
        e->param = param;
        e->size = v_size;
        if (v_size)
            memcpy(e->value, v, v_size);
        free(v);
        pthread_mutex_lock(&d->cache_lock);
        e->next = d->cache;
        d->cache = e;
        pthread_mutex_unlock(&d->cache_lock);
    }
    return aos_info_value(e->value, e->size, size, value, size_ret);
}

cl_int CL_API_CALL clRetainDevice(cl_device_id d) { return aos_device_valid(d) ? CL_SUCCESS : CL_INVALID_DEVICE; }
cl_int CL_API_CALL clReleaseDevice(cl_device_id d) { return aos_device_valid(d) ? CL_SUCCESS : CL_INVALID_DEVICE; }

cl_int CL_API_CALL clCreateSubDevices(cl_device_id d, const cl_device_partition_property *props, cl_uint n,
                                      cl_device_id *out, cl_uint *num_ret)
{
    (void)props, (void)n, (void)out, (void)num_ret;
    if (!aos_device_valid(d))
        return CL_INVALID_DEVICE;
    /* Partitioning is the scheduler's job under accelOS; sub-devices are not offered. */
    return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id d, cl_ulong *device_ts, cl_ulong *host_ts)
{
    (void)device_ts, (void)host_ts;
    return aos_device_valid(d) ? CL_INVALID_OPERATION : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL clGetHostTimer(cl_device_id d, cl_ulong *host_ts)
{
    (void)host_ts;
    return aos_device_valid(d) ? CL_INVALID_OPERATION : CL_INVALID_DEVICE;
}
