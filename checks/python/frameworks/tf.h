// TensorFlow concepts the Python checks share: Keras classes and the model code a TPU runs compiled.
#pragma once

#include "python/python_check.h"

namespace tpulint::checks::tf {

// A class deriving from a Keras layer or model: a base resolving into tf.keras, keras or tf_keras.
bool is_keras_class(python::Node class_def, const python::PythonContext& ctx);

// True when `function`, a function definition, is compiled into the TPU program: decorated with
// `tf.function` (a `tf_compiler` of python_code_roles.tsv), a TF1 Estimator model function
// (`model_fn`, `*_model_fn`), a loss or step function by name (a `hot_function` row: `yolo_loss`,
// which `model.compile(loss=...)` compiles into the train step), or the `call`/`__call__`/`train_step`/`test_step`/`predict_step`
// method of a Keras layer or model subclass (Keras compiles the step methods with tf.function).
bool is_model_function(python::Node function, const python::PythonContext& ctx);

// True when `n`, the node being checked, is in TensorFlow model code, which TPUStrategy or
// TPUEstimator compiles for the TPU: in the body of a model function or of a function nested in
// one, or in a function of the same file that such code calls by name (one level), in a file that
// imports tensorflow. Eager code and tf.data pipelines are not. Costly: ask once the op is known
// to matter.
bool in_model_code(python::Node n, const python::PythonContext& ctx);

}  // namespace tpulint::checks::tf
