/* histo: saturating histogram (counts clamp at 255) of an image whose
 * pixel values are bin indices, in four phases as in Parboil:
 *
 * histo_prescan_kernel: 1D global 64*256, local 256. Grid-stride min/max
 *   of the input, reduced in local memory, then one global atomic per
 *   work-group into range[0] (min) and range[1] (max).
 * histo_intermediates_kernel: 1D global = n rounded up to 256, local 256.
 *   Rewrites each pixel as its offset from the dense window's start, so
 *   the main kernel only does one subtraction-free range test.
 * histo_main_kernel: 1D global 64*256, local 256. Each work-group keeps a
 *   LOCAL_BINS-wide sub-histogram of the window centred between min and
 *   max in local memory (local atomics) and sends out-of-window pixels
 *   straight to global atomics; the sub-histogram is flushed at the end.
 * histo_final_kernel: 1D global = nbins rounded up to 256, local 256.
 *   Saturates the 32-bit counts to 8 bits. */
#define LOCAL_BINS 4096

__kernel void histo_prescan_kernel(__global const uint *input, int n, __global uint *range)
{
	__local uint lmin[256], lmax[256];
	int lid = get_local_id(0);
	uint mn = 0xffffffffu, mx = 0;
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		mn = min(mn, input[i]);
		mx = max(mx, input[i]);
	}
	lmin[lid] = mn;
	lmax[lid] = mx;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
		if (lid < s) {
			lmin[lid] = min(lmin[lid], lmin[lid + s]);
			lmax[lid] = max(lmax[lid], lmax[lid + s]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0) {
		atomic_min(&range[0], lmin[0]);
		atomic_max(&range[1], lmax[0]);
	}
}

static int window_start(__global const uint *range)
{
	return (int)((range[0] + range[1]) / 2) - LOCAL_BINS / 2;
}

__kernel void histo_intermediates_kernel(__global const uint *input, int n,
					 __global const uint *range, __global int *interm)
{
	int i = get_global_id(0);
	if (i < n)
		interm[i] = (int)input[i] - window_start(range);
}

__kernel void histo_main_kernel(__global const int *interm, int n, __global const uint *range,
				__global uint *hist, int nbins)
{
	__local uint sub[LOCAL_BINS];
	int lid = get_local_id(0), lsize = get_local_size(0);
	int start = window_start(range);
	for (int b = lid; b < LOCAL_BINS; b += lsize)
		sub[b] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		int off = interm[i];
		if (off >= 0 && off < LOCAL_BINS)
			atomic_inc(&sub[off]);
		else if (off + start >= 0 && off + start < nbins) /* a replay may see a stale window */
			atomic_inc(&hist[off + start]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int b = lid; b < LOCAL_BINS; b += lsize)
		if (sub[b] && b + start >= 0 && b + start < nbins)
			atomic_add(&hist[b + start], sub[b]);
}

__kernel void histo_final_kernel(__global const uint *hist, int nbins, __global uchar *out)
{
	int b = get_global_id(0);
	if (b < nbins)
		out[b] = (uchar)min(hist[b], 255u);
}
