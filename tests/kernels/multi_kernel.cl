// Several kernels in one program; each is rewritten on its own.
// DIFF: --kernel scale --global 256 --local 32 --arg buf:float:256 --arg float:3
// DIFF: --kernel shift --global 256 --local 16 --arg buf:float:256 --arg float:-1
kernel void scale(global float *p, float f) { p[get_global_id(0)] *= f; }
kernel void shift(global float *p, float f) { p[get_global_id(0)] += f * (float)get_group_id(0); }
