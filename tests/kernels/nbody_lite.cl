// All-pairs interaction with local tiles (Parboil-style pattern).
// DIFF: --kernel nbody_lite --global 256 --local 32 --arg buf:float4:256 --arg buf:float4:256:zero
kernel void nbody_lite(global const float4 *pos, global float4 *acc)
{
	local float4 tile[32];
	float4 p = pos[get_global_id(0)], a = (float4)(0.0f);
	for (size_t t = 0; t < get_num_groups(0); t++) {
		tile[get_local_id(0)] = pos[t * 32 + get_local_id(0)];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int j = 0; j < 32; j++) {
			float4 d = tile[j] - p;
			float r2 = d.x * d.x + d.y * d.y + d.z * d.z + 0.01f;
			a += d * (tile[j].w * native_rsqrt(r2 * r2 * r2));
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	acc[get_global_id(0)] = a;
}
