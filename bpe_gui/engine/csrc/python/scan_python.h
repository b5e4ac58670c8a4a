/*
 * scan_python.h -- the Python glue of every extension that scans (see scan.h):
 * set_tables(blob | None), tables_version(), register_tables(blob) -> slot,
 * slot_version(slot), the module constants TABLES_REGEX_VERSION and MAX_TABLE_SLOTS, all
 * about the one scanner of `_scan`, and scan_py_check_id(id) for the scanner ids the
 * module's functions take. Include it after Python.h
 * and scan.h, list SCAN_PYTHON_METHODS in the module's method table and call
 * scan_python_add_constants(module) in PyInit: in an extension built with
 * scan/scan_shared.c it first imports `_scan`'s function table (the capsule). `_scan`
 * itself defines BPE_SCAN_PROVIDER before including this file.
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

/* Tables of another Unicode version, into a slot of their own (scan.h, "Tables"). */
static PyObject *scan_py_register_tables(PyObject *self, PyObject *arg)
{
    const char *err = NULL;
    Py_buffer v;
    (void)self;
    if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE) < 0)
        return NULL;
    int slot = bpe_scan_register_blob((const unsigned char *)v.buf, (size_t)v.len, &err);
    PyBuffer_Release(&v);
    if (slot < 0) {
        PyErr_SetString(PyExc_ValueError, err ? err : "bad tables");
        return NULL;
    }
    return PyLong_FromLong(slot);
}

static PyObject *scan_py_slot_version(PyObject *self, PyObject *arg)
{
    (void)self;
    long slot = PyLong_AsLong(arg);
    if (slot == -1 && PyErr_Occurred())
        return NULL;
    const bpe_scan_tables *t = bpe_scan_slot_tables((int)slot);
    if (!t) {
        PyErr_Format(PyExc_ValueError, "no scanner tables in slot %ld", slot);
        return NULL;
    }
    return PyUnicode_FromString(bpe_scan_tables_version(t));
}

/* 0 if `id` is a scanner id this process can scan with, else -1 with ValueError */
static int scan_py_check_id(int id)
{
    if (bpe_scan_id_ok(id))
        return 0;
    PyErr_Format(PyExc_ValueError, "unknown scanner preset %d (kinds: 0 gpt2, 1 cl100k, "
                 "2 o200k, 3 llama3, 4 qwen2, 5 superbpe2, 6 tekken; plus a registered "
                 "tables slot << 8)", id);
    return -1;
}

#define SCAN_PYTHON_METHODS                                                              \
    {"set_tables", scan_py_set_tables, METH_O,                                          \
     "set_tables(blob or None): the scanner's character tables (see scan.h)"},          \
    {"tables_version", scan_py_tables_version, METH_NOARGS,                             \
     "tables_version() -> the `regex` version of the current tables"},                  \
    {"register_tables", scan_py_register_tables, METH_O,                                \
     "register_tables(blob) -> slot: tables kept for scanner ids kind | slot << 8"},    \
    {"slot_version", scan_py_slot_version, METH_O,                                      \
     "slot_version(slot) -> the version named in a slot's tables (0: the current)"}

static int scan_python_add_constants(PyObject *m)
{
#ifndef BPE_SCAN_PROVIDER
    if (!bpe_scan_shared) {
        /* (not PyCapsule_Import: it walks attributes from `bpe_gui`, and bpe_gui.engine
           is not one yet while the package imports this module) */
        PyObject *mod = PyImport_ImportModule("bpe_gui.engine.text._scan");
        PyObject *cap = mod ? PyObject_GetAttrString(mod, "_C_API") : NULL;
        const bpe_scan_api *api =
            cap ? (const bpe_scan_api *)PyCapsule_GetPointer(cap, BPE_SCAN_CAPSULE) : NULL;
        Py_XDECREF(cap);
        Py_XDECREF(mod);
        if (!api)
            return -1;
        if (api->version != BPE_SCAN_API_VERSION || api->npresets != BPE_SCAN_NPRESETS) {
            PyErr_SetString(PyExc_ImportError, "bpe_gui.engine.text._scan is from another build "
                            "(its scanner table differs): rebuild the extensions with "
                            "`python setup.py build_ext --inplace`");
            return -1;
        }
        bpe_scan_shared = api;
    }
#endif
    if (PyModule_AddIntConstant(m, "MAX_TABLE_SLOTS", BPE_SCAN_MAX_SLOTS) < 0)
        return -1;
    return PyModule_AddStringConstant(m, "TABLES_REGEX_VERSION",
                                      bpe_scan_tables_version(bpe_scan_builtin_tables()));
}

#endif
