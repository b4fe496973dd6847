from sim.view.cli import entry

entry()
