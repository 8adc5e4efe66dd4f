// Program-scope constant array.
// DIFF: --kernel constant_table --global 640 --local 64 --arg buf:int:640:zero
constant int primes[10] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 };
kernel void constant_table(global int *out)
{
	size_t g = get_global_id(0);
	out[g] = primes[get_group_id(0) % 10] * primes[g % 10];
}
