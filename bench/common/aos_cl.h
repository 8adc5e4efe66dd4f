/* One place that pins the OpenCL API level the harness is written against:
 * 1.2 keeps clCreateCommandQueue undeprecated and works on every ICD. */
#ifndef AOS_CL_H
#define AOS_CL_H
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#endif
