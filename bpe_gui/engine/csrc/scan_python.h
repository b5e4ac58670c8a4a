/*
 * scan_python.h -- the Python glue every extension that compiles scan.c needs (see
 * scan.h, "Tables"): set_tables(blob | None), tables_version(), and the module constant
 * TABLES_REGEX_VERSION. Include it after Python.h and scan.h, list SCAN_PYTHON_METHODS in
 * the module's method table and call scan_python_add_constants(module) in PyInit.
 */
#ifndef BPE_SCAN_PYTHON_H
#define BPE_SCAN_PYTHON_H

/* Character tables computed from another `regex` release; None: the built-in ones. */
static PyObject *scan_py_set_tables(PyObject *self, PyObject *arg)
{
    const char *err = NULL;
    int rc;
    (void)self;
    if (arg == Py_None) {
        rc = bpe_scan_install_blob(NULL, 0, &err);
    } else {
        Py_buffer v;
        if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE) < 0)
            return NULL;
        rc = bpe_scan_install_blob((const unsigned char *)v.buf, (size_t)v.len, &err);
        PyBuffer_Release(&v);
    }
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, err ? err : "bad tables");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *scan_py_tables_version(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(bpe_scan_tables_version(bpe_scan_current_tables()));
}

#define SCAN_PYTHON_METHODS                                                              \
    {"set_tables", scan_py_set_tables, METH_O,                                          \
     "set_tables(blob or None): the scanner's character tables (see scan.h)"},          \
    {"tables_version", scan_py_tables_version, METH_NOARGS,                             \
     "tables_version() -> the `regex` version of the current tables"}

static int scan_python_add_constants(PyObject *m)
{
    return PyModule_AddStringConstant(m, "TABLES_REGEX_VERSION",
                                      bpe_scan_tables_version(bpe_scan_builtin_tables()));
}

#endif
