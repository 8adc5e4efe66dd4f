/* sgemm: C = alpha * A * B^T + beta * C, all column-major.
 * A is m x k (lda = m), B is n x k (ldb = n), C is m x n (ldc = m).
 *
 * mysgemmNT: 2D NDRange global (m, n), local (TILE, TILE); m, n and k are
 * multiples of TILE. Each work-group stages one TILE x TILE block of A and
 * of B in local memory per step along k, so each global element is loaded
 * once per work-group instead of once per work-item. */
#define TILE 16

__kernel void mysgemmNT(__global const float *A, int lda,
			__global const float *B, int ldb,
			__global float *C, int ldc, int k,
			float alpha, float beta)
{
	__local float As[TILE][TILE];
	__local float Bs[TILE][TILE];
	int tx = get_local_id(0), ty = get_local_id(1);
	int row = get_global_id(0), col = get_global_id(1);
	int brow = get_group_id(0) * TILE, bcol = get_group_id(1) * TILE;
	float acc = 0.0f;

	for (int k0 = 0; k0 < k; k0 += TILE) {
		/* tx walks rows, ty walks the k slice: coalesced column reads. */
		As[ty][tx] = A[(brow + tx) + (k0 + ty) * lda];
		Bs[ty][tx] = B[(bcol + tx) + (k0 + ty) * ldb];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int i = 0; i < TILE; i++)
			acc += As[i][tx] * Bs[i][ty];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	C[row + col * ldc] = alpha * acc + beta * C[row + col * ldc];
}
