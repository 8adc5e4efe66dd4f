/* spmv: y = A * x with A in JDS (jagged diagonal storage). Rows are sorted
 * by decreasing length (perm maps sorted row -> original row); diagonal d
 * stores the d-th nonzero of every row that has one, contiguously, starting
 * at jd_ptr[d], so consecutive work-items read consecutive addresses.
 *
 * spmv_jds_naive: 1D NDRange global = dim rounded up to 64, local 64; one
 * work-item per (sorted) row, nzcnt[row] = that row's nonzero count. */
__kernel void spmv_jds_naive(__global float *dst, __global const float *data,
			     __global const int *indices, __global const int *perm,
			     __global const float *x, __global const int *nzcnt,
			     __global const int *jd_ptr, int dim)
{
	int row = get_global_id(0);
	if (row >= dim)
		return;
	float sum = 0.0f;
	int n = nzcnt[row];
	for (int d = 0; d < n; d++) {
		int at = jd_ptr[d] + row;
		sum += data[at] * x[indices[at]];
	}
	dst[perm[row]] = sum;
}
