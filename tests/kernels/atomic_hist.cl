// Global atomics: histogram (order independent).
// DIFF: --kernel atomic_hist --global 8192 --local 64 --arg buf:uint:8192:mod64 --arg buf:uint:64:zero
kernel void atomic_hist(global const uint *in, global uint *hist)
{
	atomic_inc(&hist[in[get_global_id(0)] & 63]);
}
