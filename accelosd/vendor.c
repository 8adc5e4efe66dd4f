/*
 * The daemon's own minimal ICD loading: read *.icd files, dlopen each vendor library, ask it for
 * its platforms through clIcdGetPlatformIDsKHR. accelOS's own vendor file and any library named
 * like libproxycl are skipped before loading, so the daemon can never end up talking to itself.
 */
#include "vendor.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/wire_core.h"

typedef cl_int (*icd_get_platforms_fn)(cl_uint, cl_platform_id *, cl_uint *);

static struct aos_device devices[AOS_MAX_DEVICES];
static uint32_t device_total;
static void *libraries[32];
static uint32_t library_total;

static int is_own_icd(const char *file_name, const char *library)
{
    return strstr(file_name, "accelos") != NULL || strstr(library, "proxycl") != NULL;
}

static void add_platform_devices(cl_platform_id platform)
{
    cl_uint n = 0;
    if (NATIVE(platform, clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return;
    cl_device_id ids[AOS_MAX_DEVICES];
    if (n > AOS_MAX_DEVICES)
        n = AOS_MAX_DEVICES;
    if (NATIVE(platform, clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, n, ids, NULL) != CL_SUCCESS)
        return;
    for (cl_uint i = 0; i < n && device_total < AOS_MAX_DEVICES; i++) {
        struct aos_device *d = &devices[device_total];
        d->platform = platform;
        d->device = ids[i];
        d->index = device_total;
        NATIVE(ids[i], clGetDeviceInfo)(ids[i], CL_DEVICE_TYPE, sizeof(d->type), &d->type, NULL);
        device_total++;
    }
}

static void load_library(const char *file_name, const char *library)
{
    if (is_own_icd(file_name, library)) {
        aos_log(AOS_LOG_INFO, "vendor", "skipping accelOS's own ICD %s", file_name);
        return;
    }
    if (library_total == sizeof(libraries) / sizeof(libraries[0]))
        return;
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        aos_log(AOS_LOG_WARN, "vendor", "cannot load %s: %s", library, dlerror());
        return;
    }
    /* The loader protocol: ask the library's clGetExtensionFunctionAddress for the entry point. */
    typedef void *(*get_address_fn)(const char *);
    get_address_fn get_address = (get_address_fn)dlsym(handle, "clGetExtensionFunctionAddress");
    icd_get_platforms_fn get = get_address ? (icd_get_platforms_fn)get_address("clIcdGetPlatformIDsKHR") : NULL;
    cl_uint n = 0;
    if (!get || get(0, NULL, &n) != CL_SUCCESS || n == 0) {
        aos_log(AOS_LOG_WARN, "vendor", "%s offers no ICD platforms", library);
        dlclose(handle);
        return;
    }
    cl_platform_id platforms[16];
    if (n > 16)
        n = 16;
    if (get(n, platforms, NULL) != CL_SUCCESS) {
        dlclose(handle);
        return;
    }
    libraries[library_total++] = handle;
    for (cl_uint i = 0; i < n; i++)
        add_platform_devices(platforms[i]);
    aos_log(AOS_LOG_INFO, "vendor", "loaded %s: %u platform(s)", library, n);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int aos_vendor_load(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    char *names[64];
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < 64) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".icd") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    /* Sorted, so device order (and thus device ids) is stable across restarts. */
    qsort(names, count, sizeof(names[0]), compare_names);
    for (size_t i = 0; i < count; i++) {
        char path[4096], library[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(library, sizeof(library), f)) {
                library[strcspn(library, "\r\n")] = 0;
                if (library[0])
                    load_library(names[i], library);
            }
            fclose(f);
        }
        free(names[i]);
    }
    return (int)device_total;
}

void aos_vendor_unload(void)
{
    /* Vendor libraries stay loaded: unloading them at exit races with their own threads. */
    device_total = 0;
}

uint32_t aos_device_count(void) { return device_total; }

const struct aos_device *aos_device_by_id(uint64_t id)
{
    if (id < AOS_DEVICE_ID_BASE || id >= AOS_DEVICE_ID_BASE + (uint64_t)device_total)
        return NULL;
    return &devices[id - AOS_DEVICE_ID_BASE];
}

const struct aos_device *aos_device_at(uint32_t index)
{
    return index < device_total ? &devices[index] : NULL;
}
