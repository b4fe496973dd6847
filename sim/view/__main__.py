from dialectica.sim.view.cli import entry

entry()
