// Device-side enqueue: the rewrite must refuse it and say why.
kernel void child(global int *p) { p[get_global_id(0)] = 1; }
kernel void parent(global int *p)
{
	queue_t q = get_default_queue();
	ndrange_t r = ndrange_1D(16);
	enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, r, ^{ p[get_global_id(0)] += 2; });
}
