//! Arrays handed to Python without copying: a Rust `Vec` behind the buffer protocol.
//!
//! `numpy.frombuffer(array, dtype)` views the Vec's memory directly and keeps the `Array`
//! alive. Copying into `bytes` instead cost about a third of reading a 300k-triangle frame
//! (the copies themselves and the fresh pages they fault in). Data are in native byte order,
//! little-endian on every platform Blender ships for.

use std::ffi::{c_int, c_void};

use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;

#[cfg(not(target_endian = "little"))]
compile_error!("gloop_core hands arrays to Python as little-endian memory");

/// The element types the readers produce.
pub enum Data {
    F32(Vec<f32>),
    I32(Vec<i32>),
    U32x3(Vec<[u32; 3]>),
    I32x2(Vec<[i32; 2]>),
}

impl Data {
    fn raw(&self) -> (*const c_void, usize) {
        fn raw<T>(v: &[T]) -> (*const c_void, usize) {
            (v.as_ptr() as *const c_void, std::mem::size_of_val(v))
        }
        match self {
            Data::F32(v) => raw(v),
            Data::I32(v) => raw(v),
            Data::U32x3(v) => raw(v),
            Data::I32x2(v) => raw(v),
        }
    }
}

/// A read-only, flat array of bytes (interpret with `numpy.frombuffer(a, "<f4")` or `"<i4"`).
#[pyclass(frozen, module = "gloop_core")]
pub struct Array {
    data: Data,
}

impl Array {
    pub fn new(data: Data) -> Self {
        Array { data }
    }
}

#[pymethods]
impl Array {
    /// Size in bytes.
    fn __len__(&self) -> usize {
        self.data.raw().1
    }

    /// # Safety
    /// Called by Python with a valid `view`. The memory stays valid while the view exists:
    /// `PyBuffer_FillInfo` takes a reference to this object, and a frozen `Array` never
    /// changes its data.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("gloop_core arrays are read-only"));
        }
        let (ptr, len) = slf.get().data.raw();
        // SAFETY: ptr/len describe the Vec owned by `slf`, which the view keeps alive.
        let status = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                ptr as *mut c_void,
                len as ffi::Py_ssize_t,
                1,
                flags,
            )
        };
        if status == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}
