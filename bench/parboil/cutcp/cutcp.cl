/* cutcp: cutoff Coulombic potential on a 3D lattice. Atoms are pre-sorted
 * into cubic bins (CSR: bin b holds atoms[binStart[b] .. binStart[b+1])),
 * so a lattice point only visits bins within the cutoff distance.
 *   V(p) = sum over atoms with r^2 < c^2 of q / r * (1 - r^2/c^2)^2
 * Pairs closer than 0.1 A are skipped to avoid the singularity.
 *
 * opencl_cutoff_potential_lattice: 3D NDRange global (nx, ny, nz),
 * local (8, 8, 1); nx and ny multiples of 8. Lattice point (i,j,k) sits at
 * (i*h, j*h, k*h); atoms are float4 (x, y, z, charge). */
__kernel void opencl_cutoff_potential_lattice(int nbx, int nby, int nbz, float binlen,
					      __global const int *binStart,
					      __global const float4 *atoms,
					      float h, float cutoff2,
					      int nx, int ny, int nz,
					      __global float *lattice)
{
	int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
	if (i >= nx || j >= ny || k >= nz)
		return;
	float px = i * h, py = j * h, pz = k * h;
	int reach = (int)ceil(sqrt(cutoff2) / binlen);
	int bx = min((int)(px / binlen), nbx - 1);
	int by = min((int)(py / binlen), nby - 1);
	int bz = min((int)(pz / binlen), nbz - 1);
	float inv_c2 = 1.0f / cutoff2;
	float e = 0.0f;
	for (int z = max(bz - reach, 0); z <= min(bz + reach, nbz - 1); z++)
		for (int y = max(by - reach, 0); y <= min(by + reach, nby - 1); y++)
			for (int x = max(bx - reach, 0); x <= min(bx + reach, nbx - 1); x++) {
				int b = x + nbx * (y + nby * z);
				for (int a = binStart[b]; a < binStart[b + 1]; a++) {
					float4 at = atoms[a];
					float dx = at.x - px, dy = at.y - py, dz = at.z - pz;
					float r2 = dx * dx + dy * dy + dz * dz;
					if (r2 < cutoff2 && r2 > 0.01f) {
						float s = 1.0f - r2 * inv_c2;
						e += at.w * rsqrt(r2) * s * s;
					}
				}
			}
	lattice[i + nx * (j + ny * k)] = e;
}
