/* lbm: one time step of a D3Q19 lattice-Boltzmann fluid (BGK collision),
 * pull-style streaming with periodic boundaries and bounce-back at
 * obstacle cells. Distributions are stored structure-of-arrays:
 * f[q * ncells + cell], cell = x + nx * (y + ny * z).
 *
 * performStreamCollide_kernel: 3D NDRange global (nx, ny, nz),
 * local (nx, 1, 1) (one row of x per work-group, as Parboil does);
 * launched once per time step, ping-ponging src and dst. */
__constant int EX[19] = { 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0 };
__constant int EY[19] = { 0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1 };
__constant int EZ[19] = { 0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1 };
__constant int OPP[19] = { 0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15 };
__constant float W[19] = { 1.0f / 3, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18,
			   1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36,
			   1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36 };

__kernel void performStreamCollide_kernel(__global const float *src, __global float *dst,
					  __global const int *obstacle,
					  int nx, int ny, int nz, float omega)
{
	int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	int n = nx * ny * nz;
	int cell = x + nx * (y + ny * z);
	float f[19];

	if (obstacle[cell]) {
		for (int q = 0; q < 19; q++)
			dst[q * n + cell] = src[q * n + cell];
		return;
	}
	float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
	for (int q = 0; q < 19; q++) {
		int sx = (x - EX[q] + nx) % nx, sy = (y - EY[q] + ny) % ny, sz = (z - EZ[q] + nz) % nz;
		int from = sx + nx * (sy + ny * sz);
		f[q] = obstacle[from] ? src[OPP[q] * n + cell] : src[q * n + from];
		rho += f[q];
		ux += EX[q] * f[q];
		uy += EY[q] * f[q];
		uz += EZ[q] * f[q];
	}
	ux /= rho;
	uy /= rho;
	uz /= rho;
	float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
	for (int q = 0; q < 19; q++) {
		float eu = EX[q] * ux + EY[q] * uy + EZ[q] * uz;
		float feq = W[q] * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - usq);
		dst[q * n + cell] = f[q] - omega * (f[q] - feq);
	}
}
