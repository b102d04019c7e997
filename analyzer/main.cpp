// tpulint's entry point: everything happens in the library (app/cli.cpp).
#include <iostream>

#include "app/cli.h"

int main(int argc, char** argv) { return tpulint::app::run_cli(argc, argv, std::cout, std::cerr); }
