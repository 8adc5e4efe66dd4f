/* bfs: breadth-first search costs (hop counts) from one source over a
 * graph in CSR form (edges of node v are cols[row_off[v] .. row_off[v+1])).
 *
 * BFS_kernel: 1D NDRange global = frontier size rounded up to 256,
 * local 256; launched once per BFS level by the host, which swaps the
 * frontier buffers and reads back the next frontier's size. Each work-item
 * expands one frontier node; a neighbour is claimed by whoever swaps its
 * cost from -1 (unvisited) to level + 1, so every node enters the next
 * frontier exactly once. */
__kernel void BFS_kernel(__global const int *row_off, __global const int *cols,
			 __global int *cost, __global const int *frontier_in, int n_in,
			 __global int *frontier_out, __global int *n_out, int level)
{
	int t = get_global_id(0);
	if (t >= n_in)
		return;
	int v = frontier_in[t];
	for (int e = row_off[v]; e < row_off[v + 1]; e++) {
		int w = cols[e];
		if (cost[w] == -1 && atomic_cmpxchg(&cost[w], -1, level + 1) == -1)
			frontier_out[atomic_inc(n_out)] = w;
	}
}
