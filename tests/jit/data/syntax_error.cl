kernel void broken(global int *p)
{
	p[get_global_id(0)] = undeclared_thing + ;
}
