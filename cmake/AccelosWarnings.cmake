# Project-wide compile flags: warnings as errors, optional sanitizers.
add_compile_options(-Wall -Wextra -Werror -D_GNU_SOURCE)
if(ACCELOS_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
