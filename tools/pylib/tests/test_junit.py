# SPDX-License-Identifier: GPL-2.0
"""kstacks.junit: the KCIDB file and check.tsv as JUnit XML."""

import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

from kstacks import junit

KCIDB = {
    'version': {'major': 5, 'minor': 0},
    'checkouts': [{'id': 'kstacks:6.1/core', 'valid': False, 'log_excerpt': 'Hunk #1 FAILED\nmore',
                   'misc': {'group': 'cell 6.1 core'}},
                  {'id': 'kstacks:6.1/ok', 'valid': True, 'misc': {'group': 'cell 6.1 core'}}],
    'builds': [{'id': 'kstacks:6.1/core/debug', 'status': 'PASS', 'config_name': 'debug',
                'misc': {'group': 'cell 6.1 core', 'label': 'debug kernel'}},
               {'id': 'kstacks:6.1/bench', 'misc': {'group': 'bench 6.1'}}],
    'tests': [{'build_id': 'kstacks:6.1/core/debug', 'path': 'kunit.page_batch', 'status': 'FAIL',
               'duration': 0, 'log_excerpt': '\n# expected 4096 <&"\'> got 0\x1b\n'},
              {'build_id': 'kstacks:6.1/core/debug', 'path': 'boot', 'status': 'ERROR',
               'comment': '  no console'},
              {'build_id': 'kstacks:6.1/core/debug', 'path': 'skipped', 'status': 'SKIP'},
              {'build_id': 'kstacks:6.1/bench', 'path': 'map_thp_s', 'status': 'PASS',
               'number': {'value': 2.0, 'unit': 's'},
               'misc': {'samples': 5, 'min': 1.5, 'max': 0.1}},
              {'build_id': 'kstacks:nosuch', 'path': 'orphan', 'status': 'MISS'}],
}


class JunitTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.out = self.tmp.name

    def write(self, path, text):
        full = os.path.join(self.out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)

    def doc(self, k=KCIDB):
        text = '\n'.join(junit.document(self.out, k))
        return text, ET.fromstring(text.split('\n', 1)[1])

    def test_not_kcidb(self):
        """a JSON file that is not KCIDB's shape: one line, nothing written"""
        import argparse
        from kstacks import Error
        for bad, why in (('{"tests": [1]}', 'tests is not a list of objects'),
                         ('{"checkouts": "abc"}', 'checkouts is not a list of objects'),
                         ('{"builds": [{"misc": 5}]}', 'not a KCIDB file this tool reads')):
            with self.subTest(bad=bad):
                self.write('k.json', bad)
                args = argparse.Namespace(kcidb=os.path.join(self.out, 'k.json'),
                                          file=os.path.join(self.out, 'j.xml'))
                with self.assertRaisesRegex(Error, why):
                    junit.run(args)
                self.assertFalse(os.path.exists(os.path.join(self.out, 'j.xml')))

    def test_well_formed_and_escaped(self):
        text, root = self.doc()
        self.assertIn('expected 4096 &lt;&amp;&quot;&apos;&gt; got 0', text)
        self.assertNotIn('\x1b', text)
        self.assertEqual(root.get('tests'), '8')
        self.assertEqual((root.get('failures'), root.get('errors'), root.get('skipped')), ('2', '2', '1'))

    def test_cases(self):
        _, root = self.doc()
        suites = {s.get('name'): s for s in root}
        # a test whose build is unknown has no group: jq's null, sorted first
        self.assertEqual(list(suites), ['null', 'bench 6.1', 'cell 6.1 core'])
        cell = {c.get('name'): c for c in suites['cell 6.1 core']}
        self.assertEqual(cell['apply 6.1/core'].find('failure').get('message'), 'Hunk #1 FAILED')
        self.assertEqual(cell['build debug kernel'].find('system-out').text, 'debug')
        kunit = cell['debug kernel: kunit.page_batch']
        self.assertEqual(kunit.get('time'), '0')
        # the message is the first line of the excerpt that is not empty
        self.assertEqual(kunit.find('failure').get('message'), '# expected 4096 <&"\'> got 0')
        self.assertEqual(cell['debug kernel: boot'].find('error').get('message'), 'no console')
        self.assertIsNotNone(cell['debug kernel: skipped'].find('skipped'))
        bench = {c.get('name'): c for c in suites['bench 6.1']}
        self.assertEqual(bench['6.1/bench: map_thp_s'].find('system-out').text,
                         '2 s (median of 5; min 1.5, max 0.1)')
        self.assertEqual(bench['build 6.1/bench'].get('name'), 'build 6.1/bench')

    def test_unit_tier_is_check_without_cells(self):
        self.write('check.tsv', 'pass\tcell test\t\npass\tunit a\t\nfail\tunit b\twhy <\n'
                   'skip\tunit c\tno tool\nweird\tunit d\t\npass\tcell test\t\n')
        self.write('cells/6.1/core/results.tsv', 'pass\tcell test\t\n')
        _, root = self.doc({})
        unit = root.find('testsuite')
        self.assertEqual(unit.get('name'), 'unit tier')
        names = [c.get('name') for c in unit]
        # one "cell test" is the cell's, the other is the unit tier's own
        self.assertEqual(names, ['unit a', 'unit b', 'unit c', 'unit d', 'cell test'])
        self.assertEqual((unit.get('failures'), unit.get('errors'), unit.get('skipped')), ('1', '1', '1'))

    def test_numbers_as_jq_prints_them(self):
        self.assertEqual(junit.number(2.0), '2')
        self.assertEqual(junit.number(0.1), '0.1')
        self.assertEqual(junit.number(5), '5')


if __name__ == '__main__':
    unittest.main()
