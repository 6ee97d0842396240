// An extern cannot take a control: only parsers, controls and packages
// are built from other parsers and controls.
#include <core.p4>

control Step();

extern Runner {
    Runner(Step s);
    void run();
}

control nothing() {
    apply {}
}

control c() {
    Runner(nothing()) runner;
    apply { runner.run(); }
}

package top(Step s);
top(c()) main;
