# Inconsistent indentation.
# expect: FILE:5:3: error: unindent does not match any outer indentation level
def f(x: "f32[8]"):
    y = x
  return y
