"""The ATen rows of the rest of model code's math (tests/run/math2.py has
the torch spellings), as a torch.compile backend prints them: aten.NAME.
OVERLOAD(...), one op a line.  Outputs that may hold NaN come as isnan()
and the values with NaNs made 0 (the comparison with PyTorch takes no NaN)."""
import torch

aten = torch.ops.aten


def unary(arg0: "f32[6, 40] uniform(-0.99, 0.99)", arg1: "f32[6, 40] uniform(1, 20)"):
    v0 = aten.tan.default(arg1)
    v1 = aten.asin.default(arg0)
    v2 = aten.acos.default(arg0)
    v3 = aten.atan.default(arg1)
    v4 = aten.sinh.default(arg1)
    v5 = aten.cosh.default(arg0)
    v6 = aten.asinh.default(arg1)
    v7 = aten.acosh.default(arg1)
    v8 = aten.atanh.default(arg0)
    v9 = aten.erfc.default(arg0)
    v10 = aten.erfinv.default(arg0)
    v11 = aten.expm1.default(arg0)
    v12 = aten.log10.default(arg1)
    v13 = aten.log1p.default(arg0)
    v14 = aten.signbit.default(arg0)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14)


def unary_other_dtypes(arg0: "bf16[4, 32] uniform(-0.9, 0.9)", arg1: "i32[4, 32] uniform(-5, 5)", arg2: "f64[4, 32] uniform(-3, 3)"):
    v0 = aten.erfinv.default(arg0)
    v1 = aten.log1p.default(arg0)
    v2 = aten.atan.default(arg1)
    v3 = aten.signbit.default(arg1)
    v4 = aten.expm1.default(arg2)
    v5 = aten.asinh.default(arg2)
    v6 = aten.erfc.default(arg1)
    return (v0, v1, v2, v3, v4, v5, v6)


def binary(arg0: "f32[5, 48] uniform(-10, 10)", arg1: "f32[48] uniform(-4, 4)"):
    v0 = aten.atan2.default(arg0, arg1)
    v1 = aten.hypot.default(arg0, arg1)
    v2 = aten.copysign.Tensor(arg1, arg0)
    v3 = aten.copysign.Scalar(arg0, -2.0)
    v4 = aten.fmod.Tensor(arg0, arg1)
    v5 = aten.fmod.Scalar(arg0, 1.5)
    v6 = aten.remainder.Tensor(arg0, arg1)
    v7 = aten.remainder.Scalar(arg0, -2.5)
    v8 = aten.remainder.Scalar_Tensor(3.0, arg1)
    v9 = aten.floor_divide.default(arg0, arg1)
    v10 = aten.floor_divide.Scalar(arg0, 0.75)
    v11 = aten.div.Tensor_mode(arg0, arg1, rounding_mode="floor")
    v12 = aten.div.Scalar_mode(arg0, -0.75, rounding_mode="floor")
    v13 = aten.remainder(arg0, 4)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13)


def binary_zero(arg0: "f32[4, 24] uniform(-5, 5)"):
    # a zero divisor: fmod and remainder NaN, floor_divide +-inf (and NaN for 0 / 0)
    v0 = aten.full.default([4, 24], 0.0, dtype=torch.float32)
    v1 = aten.fmod.Tensor(arg0, v0)
    v2 = aten.isnan.default(v1)
    v3 = aten.floor_divide.default(arg0, v0)
    v4 = aten.remainder.Scalar(arg0, 0.0)
    v5 = aten.isnan.default(v4)
    return (v2, v3, v5)


def ints(arg0: "i32[4, 30] uniform(-500, 500)", arg1: "i32[30] uniform(1, 9)", arg2: "i64[4, 30] uniform(-500, 500)",
         arg3: "i64[30] uniform(0, 40)"):
    v0 = aten.remainder.Tensor(arg0, arg1)
    v1 = aten.remainder.Scalar(arg2, -7)
    v2 = aten.fmod.Tensor(arg0, arg1)
    v3 = aten.fmod.Scalar(arg2, 6)
    v4 = aten.floor_divide.default(arg0, arg1)
    v5 = aten.floor_divide.Scalar(arg2, -3)
    v6 = aten.div.Tensor_mode(arg0, arg1, rounding_mode="trunc")
    v7 = aten.div.Tensor_mode(arg2, arg1, rounding_mode="floor")
    v8 = aten.bitwise_left_shift.Tensor(arg2, arg3)
    v9 = aten.bitwise_left_shift.Tensor_Scalar(arg0, 3)
    v10 = aten.bitwise_left_shift.Scalar_Tensor(5, arg3)
    v11 = aten.bitwise_right_shift.Tensor(arg2, arg3)
    v12 = aten.bitwise_right_shift.Tensor_Scalar(arg0, 2)
    v13 = aten.bitwise_right_shift.Scalar_Tensor(-4096, arg3)
    v14 = aten.__lshift__.Tensor(arg0, arg1)
    v15 = aten.__lshift__.Scalar(arg2, 2)
    v16 = aten.__rshift__.Tensor(arg0, arg1)
    v17 = aten.__rshift__.Scalar(arg2, 5)
    v18 = aten.remainder.Scalar_Tensor(100, arg1)
    v19 = aten.copysign.Tensor(arg0, arg2)
    v20 = aten.atan2.default(arg0, arg2)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20)


def half_types(arg0: "bf16[4, 40] uniform(-8, 8)", arg1: "f16[40] uniform(-3, 3)"):
    v0 = aten.remainder.Scalar(arg0, 0.3)
    v1 = aten.floor_divide.Scalar(arg0, 0.3)
    v2 = aten.fmod.Tensor(arg0, arg1)
    v3 = aten.atan2.default(arg0, arg1)
    v4 = aten.hypot.default(arg1, arg1)
    v5 = aten.remainder.Scalar_Tensor(2.3, arg1)
    return (v0, v1, v2, v3, v4, v5)
