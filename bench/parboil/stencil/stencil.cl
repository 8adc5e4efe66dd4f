/* stencil: one Jacobi iteration of a 7-point 3D stencil,
 *   next = c1 * (sum of the 6 face neighbours) - c0 * centre,
 * boundary cells copied unchanged. Layout: x fastest, then y, then z.
 *
 * naive_kernel: 3D NDRange global (nx, ny, nz), local (16, 4, 1); nx is a
 * multiple of 16 and ny of 4. One work-item per cell, no data reuse
 * (the "naive" variant). Launched once per iteration, ping-ponging. */
__kernel void naive_kernel(float c0, float c1,
			   __global const float *A0, __global float *Anext,
			   int nx, int ny, int nz)
{
	int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
	long idx = i + (long)nx * (j + (long)ny * k);
	if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
		Anext[idx] = A0[idx];
		return;
	}
	long sy = nx, sz = (long)nx * ny;
	Anext[idx] = c1 * (A0[idx - 1] + A0[idx + 1] + A0[idx - sy] + A0[idx + sy] +
			   A0[idx - sz] + A0[idx + sz]) - c0 * A0[idx];
}
