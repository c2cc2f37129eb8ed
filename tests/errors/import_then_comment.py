# An import coil cannot read (nothing after `import` but a comment) binds
# nothing, and the rest of the file compiles; reading it once freed its
# error twice (make fuzz found it).  torch is known without its import.
# expect: FILE:7:29: error: torch.maximum expects a tensor as its second argument; use clamp for a number
import#torch
def f(x: "f32[8]"):
    return torch.maximum(x, 0.5)
