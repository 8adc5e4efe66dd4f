// Tiled matrix multiply with two local tiles.
// DIFF: --kernel matmul_tiled --global 32,32 --local 8,8 --arg buf:float:1024 --arg buf:float:1024 --arg buf:float:1024:zero --arg int:32
#define TS 8
kernel void matmul_tiled(global const float *A, global const float *B, global float *C, int n)
{
	local float As[TS][TS], Bs[TS][TS];
	int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
	int col = (int)get_global_id(0), row = (int)get_global_id(1);
	float acc = 0.0f;
	for (int t = 0; t < n / TS; t++) {
		As[ty][tx] = A[row * n + t * TS + tx];
		Bs[ty][tx] = B[(t * TS + ty) * n + col];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int k = 0; k < TS; k++)
			acc += As[ty][k] * Bs[k][tx];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	C[row * n + col] = acc;
}
