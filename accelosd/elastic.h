/*
 * Elastic twins (policy fair). A program built from source keeps its native build: that is the
 * program the application sees (info, build log, binaries, kernel descriptions). Next to it the
 * daemon builds a twin from the same source and options through the JIT (accelos/jit.h), whose
 * kernels run as persistent work-group loops over a virtual NDRange; launches use the twin's
 * kernels (launch.c). Anything the JIT cannot do leaves the program or kernel native.
 *
 * Ownership: a twin program is reference counted (the program handle holds one, every twin
 * kernel another); a twin kernel has a single owner, the client's kernel handle.
 */
#ifndef ACCELOSD_ELASTIC_H
#define ACCELOSD_ELASTIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accelos/vndrange.h"
#include "native.h"

struct aos_elastic_program;
struct aos_elastic_job;

/* A rewritten kernel of a twin program. */
struct aos_elastic_kernel {
    cl_kernel kernel;        /* the twin's real kernel: one reference */
    cl_kernel direct;        /* its direct shape (accelos/vndrange.h), one reference; NULL when
                              * the target has none */
    cl_kernel cut;           /* the direct shape whose waves can be cut (struct aos_cut), one
                              * reference; NULL without a direct shape */
    cl_device_id device;     /* the device it was built for */
    cl_uint num_args;        /* the application's arguments; runtime arguments follow */
    unsigned runtime_args;   /* trailing arguments the launch sets (the virtual NDRange record, or
                              * the direct kernel's grid) */
    unsigned chunk;          /* compiled virtual groups per dequeue (a record's chunk 0) */
    size_t wg_size;          /* CL_KERNEL_WORK_GROUP_SIZE of the twin on device */
    size_t compile_wg[3];    /* reqd_work_group_size, zeros when absent */
    uint32_t regs_per_thread; /* registers per work-item as the vendor reports them (NVIDIA:
                               * -cl-nv-verbose build log); 0 = unknown, registers do not bind */
    bool launched;            /* a launch of it has run a wave: the device has compiled it */
    bool solo_ran;            /* a solo launch of it ran: the device has compiled its code for one */
    uint64_t code_key;        /* the rewritten module's bytes and the kernel's name: the same code
                               * in any program of any client gets the same key */
};

/*
 * Starts the JIT compile of prog's source for devs (n > 0) on a helper thread, so it overlaps the
 * native build. Returns NULL when the program cannot be elastic: not created from source, devices
 * without a common JIT target, or no resources. The caller must finish the job.
 */
struct aos_elastic_job *aos_elastic_job_start(cl_program prog, cl_uint n, const cl_device_id *devs,
                                              const char *options);
/* Waits for the compile. When native_ok, loads the rewritten module and builds it for the same
 * devices. Returns the twin (one reference) or NULL (the program stays native; the reason is
 * logged). Frees the job. */
struct aos_elastic_program *aos_elastic_job_finish(struct aos_elastic_job *job, bool native_ok);

void aos_elastic_program_ref(struct aos_elastic_program *ep);
void aos_elastic_program_unref(struct aos_elastic_program *ep);

/*
 * What the scheduler remembers a kernel's time per virtual group by: its code and the launch's
 * local size, so a client's first launch of a kernel that another (or an earlier process of the
 * same application) ran before is sized from that run, not probed. Not the group count: launches
 * of one kernel over changing ranges (a BFS level, a scan pass) share what was measured. Never 0.
 */
uint64_t aos_elastic_estimate_key(const struct aos_elastic_kernel *ek, const size_t local[3]);

/*
 * The twin of the application's kernel `name`, whose native build takes num_args arguments.
 * NULL when the JIT left that kernel native, or the twin does not match (argument count).
 * Destroy with aos_elastic_kernel_destroy().
 */
struct aos_elastic_kernel *aos_elastic_kernel_new(struct aos_elastic_program *ep, const char *name,
                                                  cl_uint num_args);
/* Sets an application argument on the twin and its direct shape. On an error the twin is unusable. */
cl_int aos_elastic_kernel_set_arg(struct aos_elastic_kernel *ek, cl_uint index, size_t size, const void *value);
/* A clone for clCloneKernel (argument values included), or NULL. */
struct aos_elastic_kernel *aos_elastic_kernel_clone(const struct aos_elastic_kernel *ek);
void aos_elastic_kernel_destroy(struct aos_elastic_kernel *ek);

/* The twin of a client's program id (a new reference), or NULL when it has none. Implemented
 * in ops_program.c, which owns the program handles' state; service thread only. */
struct aos_session;
struct aos_elastic_program *aos_program_twin(struct aos_session *s, uint64_t program_id);

#endif
