/* sad: sum of absolute differences for block-matching motion estimation
 * (H.264 style), over a full search window of +-R pixels around each
 * 16x16 macroblock. Reference pixels outside the frame clamp to the edge.
 * S = (2R+1)^2 search positions; pos = dy' * (2R+1) + dx' with dx = dx'-R.
 *
 * mb_sad_calc: 3D NDRange global (S rounded up to 64, 16, nmb), local
 *   (64, 1, 1). One work-item per (search position, 4x4 block, macroblock);
 *   sad4[(mb * 16 + blk) * S + pos], blk = by * 4 + bx.
 * larger_sad_calc_8: 2D global (S rounded up to 64, nmb), local (64, 1).
 *   Combines 4x4 SADs into 20 slots per macroblock: 0-3 the 8x8 quadrants
 *   (q = qy*2+qx), 4-11 the 8x4 pairs (by*2+qx), 12-19 the 4x8 pairs
 *   (qy*4+bx); sad8[(mb * 20 + slot) * S + pos].
 * larger_sad_calc_16: 2D global (S rounded up to 64, nmb), local (64, 1).
 *   Combines the 8x8 quadrants into 5 slots: 0 the 16x16, 1-2 the 16x8
 *   halves (top, bottom), 3-4 the 8x16 halves (left, right). */
__kernel void mb_sad_calc(__global ushort *sad4, __global const uchar *cur,
			  __global const uchar *ref, int width, int height, int range)
{
	int pos = get_global_id(0), blk = get_global_id(1), mb = get_global_id(2);
	int side = 2 * range + 1, S = side * side;
	if (pos >= S)
		return;
	int mbw = width / 16;
	int x0 = (mb % mbw) * 16 + (blk % 4) * 4, y0 = (mb / mbw) * 16 + (blk / 4) * 4;
	int dx = pos % side - range, dy = pos / side - range;
	uint sum = 0;
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++) {
			int rx = clamp(x0 + x + dx, 0, width - 1), ry = clamp(y0 + y + dy, 0, height - 1);
			sum += abs((int)cur[(y0 + y) * width + x0 + x] - (int)ref[ry * width + rx]);
		}
	sad4[(mb * 16 + blk) * S + pos] = (ushort)sum;
}

__kernel void larger_sad_calc_8(__global const ushort *sad4, __global ushort *sad8, int S)
{
	int pos = get_global_id(0), mb = get_global_id(1);
	if (pos >= S)
		return;
	uint b[16];
	for (int i = 0; i < 16; i++)
		b[i] = sad4[(mb * 16 + i) * S + pos];
	__global ushort *out = sad8 + mb * 20 * S + pos;
	for (int q = 0; q < 4; q++) {
		int bx = (q % 2) * 2, by = (q / 2) * 2;
		out[q * S] = (ushort)(b[by * 4 + bx] + b[by * 4 + bx + 1] + b[(by + 1) * 4 + bx] + b[(by + 1) * 4 + bx + 1]);
	}
	for (int by = 0; by < 4; by++)
		for (int qx = 0; qx < 2; qx++)
			out[(4 + by * 2 + qx) * S] = (ushort)(b[by * 4 + 2 * qx] + b[by * 4 + 2 * qx + 1]);
	for (int qy = 0; qy < 2; qy++)
		for (int bx = 0; bx < 4; bx++)
			out[(12 + qy * 4 + bx) * S] = (ushort)(b[2 * qy * 4 + bx] + b[(2 * qy + 1) * 4 + bx]);
}

__kernel void larger_sad_calc_16(__global const ushort *sad8, __global ushort *sad16, int S)
{
	int pos = get_global_id(0), mb = get_global_id(1);
	if (pos >= S)
		return;
	__global const ushort *in = sad8 + mb * 20 * S + pos;
	uint q0 = in[0], q1 = in[S], q2 = in[2 * S], q3 = in[3 * S];
	__global ushort *out = sad16 + mb * 5 * S + pos;
	out[0] = (ushort)(q0 + q1 + q2 + q3);
	out[S] = (ushort)(q0 + q1);
	out[2 * S] = (ushort)(q2 + q3);
	out[3 * S] = (ushort)(q0 + q2);
	out[4 * S] = (ushort)(q1 + q3);
}
