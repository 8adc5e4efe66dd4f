/* mri-q: the Q matrix of non-Cartesian MRI reconstruction,
 *   Q(x) = sum_k |phi(k)|^2 * exp(i * 2*pi * k.x).
 *
 * ComputePhiMag_GPU: 1D global = numK rounded up to 256, local 256.
 * ComputeQ_GPU: 1D global = numX rounded up to 256, local 256; launched
 *   once per chunk of at most KCHUNK k-samples held in constant memory
 *   (x,y,z = k-space position, w = |phi|^2), accumulating into Qr/Qi. */
#define KCHUNK 1024

__kernel void ComputePhiMag_GPU(__global const float *phiR, __global const float *phiI,
				__global float *phiMag, int numK)
{
	int k = get_global_id(0);
	if (k < numK)
		phiMag[k] = phiR[k] * phiR[k] + phiI[k] * phiI[k];
}

__kernel void ComputeQ_GPU(int numK, __constant float4 *kVals,
			   __global const float *x, __global const float *y,
			   __global const float *z, __global float *Qr,
			   __global float *Qi, int numX)
{
	int v = get_global_id(0);
	if (v >= numX)
		return;
	float px = x[v], py = y[v], pz = z[v];
	float qr = Qr[v], qi = Qi[v];
	for (int k = 0; k < numK; k++) {
		float4 kv = kVals[k];
		float arg = 6.2831853071795864769f * (kv.x * px + kv.y * py + kv.z * pz);
		qr += kv.w * cos(arg);
		qi += kv.w * sin(arg);
	}
	Qr[v] = qr;
	Qi[v] = qi;
}
