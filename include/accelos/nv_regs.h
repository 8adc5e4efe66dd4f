/*
 * Register counts from NVIDIA's ptxas verbose output (scheduler/nv_regs.c).
 *
 * NVIDIA's OpenCL driver assembles PTX with ptxas; with the build option
 * "-cl-nv-verbose" the program's build log (CL_PROGRAM_BUILD_LOG) carries the
 * same lines as `ptxas -v`:
 *
 *   ptxas info    : Compiling entry function 'vec_add' for 'sm_80'
 *   ptxas info    : Function properties for vec_add
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 10 registers, 380 bytes cmem[0]
 *
 * (newer ptxas: "Used 30 registers, used 1 barriers, 64 bytes smem, ...").
 * The daemon feeds the count to the share solver as
 * aos_sched_kernel.regs_per_thread. Pure text parsing, no OpenCL.
 */
#ifndef ACCELOS_NV_REGS_H
#define ACCELOS_NV_REGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Larger counts are not a register file any NVIDIA GPU has: the line is
 * treated as garbage and the kernel as unknown. */
#define AOS_NV_REGS_MAX 65536u

/*
 * Registers per thread of the entry function `kernel_name` in the ptxas
 * verbose log `log` (len bytes, untrusted, need not be NUL-terminated; a NUL
 * byte ends the text). The count is the first "Used N registers" line after
 * "Compiling entry function '<kernel_name>'" (exact name) and before the
 * entry's compilation ends (the next "Compiling ... function" line or the
 * entry's "Compile time" line). Returns 0 when the entry or its line is
 * absent or malformed, or the count is above AOS_NV_REGS_MAX: 0 means
 * unknown, i.e. registers do not bind for the kernel.
 */
uint32_t aos_nv_regs_from_log(const char *log, size_t len, const char *kernel_name);

#ifdef __cplusplus
}
#endif
#endif
